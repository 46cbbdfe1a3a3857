import BLECore

// Public factories for the memberwise initialisers (Swift's synthesised ones are internal): the
// fleet report's data model is filled by `FleetStatistics.build` over captures in memory and by
// BLEWarehouse from SQL aggregates.

extension FleetStatistics {
    public static func make(inputs: [InputOutcome], captures: [CaptureFacts], counts: [ErrorEvent.Kind: [CodeCount]], latency: [LatencyRow],
                durations: DurationStats, groups: [Dimension: [GroupRow]], period: String, identities: [[Int64: DeviceIdentity]],
                attTimeouts: [ATTTimeoutRow], laneOrder: [Int]) -> Self {
        Self(inputs: inputs, captures: captures, counts: counts, latency: latency, durations: durations, groups: groups, period: period, identities: identities, attTimeouts: attTimeouts, laneOrder: laneOrder)
    }
}

extension CaptureFacts {
    public static func make(input: String, label: String, captureName: String, capturePath: String, sha256: String, formatDescription: String,
                records: Int, firstTimestamp: Int64?, lastTimestamp: Int64?, status: String, malformedPackets: Int,
                connections: [ConnectionFact], bredrLinks: Int, events: [ErrorEvent], latencies: [LatencyKey: [Int64]],
                outcomes: [LatencyKey: [String: Int]], attOpcodeNames: [Int: String], devices: [String: DeviceIdentity],
                details: CaptureDetails? = nil) -> Self {
        Self(input: input, label: label, captureName: captureName, capturePath: capturePath, sha256: sha256, formatDescription: formatDescription, records: records, firstTimestamp: firstTimestamp, lastTimestamp: lastTimestamp, status: status, malformedPackets: malformedPackets, connections: connections, bredrLinks: bredrLinks, events: events, latencies: latencies, outcomes: outcomes, attOpcodeNames: attOpcodeNames, devices: devices, details: details)
    }
}

extension ConnectionFact {
    public static func make(id: Int64, handle: Int, peerAddress: String?, status: Int, completedAt: Int64?, start: Int64?, end: Int64?,
                beganBeforeCapture: Bool, openAtEnd: Bool, disconnectReason: Int?, disconnectCBError: String?, identity: DeviceIdentity,
                localRole: String? = nil) -> Self {
        Self(id: id, handle: handle, peerAddress: peerAddress, status: status, completedAt: completedAt, start: start, end: end, beganBeforeCapture: beganBeforeCapture, openAtEnd: openAtEnd, disconnectReason: disconnectReason, disconnectCBError: disconnectCBError, identity: identity, localRole: localRole)
    }
}

extension ErrorEvent {
    public static func make(kind: Kind, timestamp: Int64, packetID: Int, connectionID: Int64?, code: Int, name: String, cbError: String?,
                opcode: Int?, opcodeName: String?, handle: Int?, characteristic: String?, descriptor: String?, detail: String?,
                android: AndroidGattStatus? = nil) -> Self {
        Self(kind: kind, timestamp: timestamp, packetID: packetID, connectionID: connectionID, code: code, name: name, cbError: cbError, android: android, opcode: opcode, opcodeName: opcodeName, handle: handle, characteristic: characteristic, descriptor: descriptor, detail: detail)
    }
}

extension EventKey {
    public static func make(kind: ErrorEvent.Kind, code: Int) -> Self {
        Self(kind: kind, code: code)
    }
}

extension CodeCount {
    public static func make(key: EventKey, name: String, cbError: String?, cbErrors: [CBCount], count: Int, parts: [String: [Part]],
                            androidTally: [AndroidGattStatus: Int] = [:]) -> Self {
        let a = androidFields(androidTally, total: count)
        return Self(key: key, name: name, cbError: cbError, cbErrors: cbErrors, android: a.android, androids: a.androids,
                    androidNone: a.none, count: count, parts: parts)
    }
}

extension CodeCount.CBCount {
    public static func make(cbError: String?, count: Int) -> Self {
        Self(cbError: cbError, count: count)
    }
}

extension CodeCount.Part {
    public static func make(id: String, label: String, count: Int) -> Self {
        Self(id: id, label: label, count: count)
    }
}

extension GroupRow {
    public static func make(key: [String], captures: Int, attempts: Int, connections: Int, connectedTime: Int64, events: [EventKey: Int],
                            outcomes: [EventKey: Outcomes] = [:]) -> Self {
        Self(key: key, captures: captures, attempts: attempts, connections: connections, connectedTime: connectedTime, events: events,
             outcomes: outcomes)
    }
}

extension LatencyRow {
    public static func make(key: LatencyKey, name: String, outcomes: [String: Int], samples: SampleSummary) -> Self {
        Self(key: key, name: name, outcomes: outcomes, samples: samples)
    }
}

extension DurationStats {
    public static func make(complete: SampleSummary, partial: Int, byReason: [Row]) -> Self {
        Self(complete: complete, partial: partial, byReason: byReason)
    }
}

extension DurationStats.Row {
    public static func make(reason: Int?, label: String, samples: SampleSummary) -> Self {
        Self(reason: reason, label: label, samples: samples)
    }
}

extension InputOutcome {
    public static func make(path: String, kind: String?, status: Status, reason: String?, warnings: [String], formatDescription: String?, captures: Int) -> Self {
        Self(path: path, kind: kind, status: status, reason: reason, warnings: warnings, formatDescription: formatDescription, captures: captures)
    }
}
