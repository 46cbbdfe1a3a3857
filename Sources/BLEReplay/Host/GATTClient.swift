import BLEAnalysis
import BLECore
import BLEDecode

/// Why a GATT procedure failed.
public enum GATTFailure: Error, Sendable, Equatable {
    /// The peripheral answered with an ATT Error Response.
    case att(ATTErrorCode, handle: UInt16)
    /// No answer within 30 s.
    case timeout
    /// The link went down (or the bearer was closed by an earlier timeout).
    case disconnected
    /// The procedure cannot be run (unknown characteristic, value too long, ...).
    case invalid(String)
    /// The peripheral asked for security (ATT error `code` on `handle`) and the host's pairing
    /// or encryption failed (CentralHost+Security.swift).
    case security(SecurityFailure, code: ATTErrorCode, handle: UInt16)
}

/// Where a GATT client's PDUs go (Core v5.4 Vol 3 Part F 3.3.2: one request outstanding per
/// bearer): the local central host's bearer (`CentralHost`), or the bearer of a remote central
/// that a script plays against the local GATT server (`RemoteCentralBearer`).
public protocol ATTClientTransport: AnyObject {
    func send(_ pdu: [UInt8], on link: SimulatedLink, transmitted: (() -> Void)?, completion: ((ATTResult) -> Void)?)
}

extension CentralHost: ATTClientTransport {
    /// On the fixed channel (GATT procedures run there; EATT bearers carry recorded PDUs only).
    public func send(_ pdu: [UInt8], on link: SimulatedLink, transmitted: (() -> Void)?, completion: ((ATTResult) -> Void)?) {
        send(pdu, on: link, bearer: nil, transmitted: transmitted, completion: completion)
    }
}

/// GATT client procedures over the simulated host (Core v5.4 Vol 3 Part G 4.3-4.12), run one
/// at a time per link as CoreBluetooth and BlueZ do: MTU exchange, primary service discovery
/// (Read By Group Type until Attribute Not Found), included services, characteristics (Read By
/// Type 0x2803 over the service range), descriptors (Find Information), reads (with Read Blob
/// for long values) and writes.
public final class GATTClient {
    public struct Service: Sendable, Equatable {
        public var uuid: BluetoothUUID
        public var startHandle: UInt16
        public var endHandle: UInt16
    }
    public struct Characteristic: Sendable, Equatable {
        public var uuid: BluetoothUUID
        public var declarationHandle: UInt16
        public var valueHandle: UInt16
        public var properties: UInt8
        /// Last handle that belongs to it (before the next declaration or the service end).
        public var endHandle: UInt16
    }
    public struct Descriptor: Sendable, Equatable {
        public var uuid: BluetoothUUID
        public var handle: UInt16
    }

    let host: CentralHost
    public let link: SimulatedLink
    /// Where the requests go: the local host's ATT bearer, or a remote central's
    /// (`RemoteCentralBearer`, a central script facing the local GATT server).
    let transport: any ATTClientTransport
    private var procedures: [(@escaping () -> Void) -> Void] = []
    private var busy = false

    public init(host: CentralHost, link: SimulatedLink) {
        self.host = host
        self.link = link
        transport = host
    }

    /// A client on the other end of the link: its PDUs go through `transport`.
    public init(host: CentralHost, link: SimulatedLink, transport: any ATTClientTransport) {
        self.host = host
        self.link = link
        self.transport = transport
    }

    /// Runs `body` after the procedures before it; it calls `done` when finished.
    public func enqueue(_ body: @escaping (@escaping () -> Void) -> Void) {
        procedures.append(body)
        if !busy { runNext() }
    }

    private func runNext() {
        guard !procedures.isEmpty else { busy = false; return }
        busy = true
        let body = procedures.removeFirst()
        body { [weak self] in self?.runNext() }
    }

    /// Pairs when a request is refused for lack of security, then sends it again, as iOS does
    /// (CentralHost+Security.swift). Off unless set (CoreBluetoothReplay sets it).
    public var pairsWhenRequired: Bool {
        get { link.securityModelled }
        set { link.securityModelled = newValue }
    }

    /// One request; the response bytes or the failure. With `pairsWhenRequired`, an Insufficient
    /// Authentication (0x05), Insufficient Encryption Key Size (0x0C) or Insufficient Encryption
    /// (0x0F) on an unencrypted link makes the host pair or encrypt (the recorded outcome), then
    /// send the request again once.
    public func request(_ pdu: ATTPDU, _ completion: @escaping (Result<ATTPDU, GATTFailure>) -> Void) {
        transport.send(pdu.encoded(), on: link, transmitted: nil, completion: { [self] result in
            if case .error(let e) = result, link.securityModelled, !link.isEncrypted, CentralHost.requiresSecurity(e.errorCode) {
                host.secure(link) { [self] outcome in
                    switch outcome {
                    case .success: request(pdu, completion)
                    case .failure(let f): completion(.failure(.security(f, code: e.errorCode, handle: e.attributeHandle)))
                    }
                }
                return
            }
            switch result {
            case .response(let bytes):
                if let p = try? ATTPDU(decoding: bytes[...]) { completion(.success(p)) } else {
                    completion(.failure(.invalid("malformed response \(hexString(bytes))")))
                }
            case .error(let e): completion(.failure(.att(e.errorCode, handle: e.attributeHandle)))
            case .timeout: completion(.failure(.timeout))
            case .disconnected: completion(.failure(.disconnected))
            }
        })
    }

    // MARK: Procedures (each queued)

    public func exchangeMTU(_ clientRxMTU: UInt16, _ completion: @escaping (Result<Int, GATTFailure>) -> Void) {
        enqueue { [self] done in
            request(.exchangeMTURequest(ATTExchangeMTURequest(clientRxMTU: clientRxMTU))) { [self] r in
                completion(r.map { _ in link.mtu })
                done()
            }
        }
    }

    public func discoverPrimaryServices(_ completion: @escaping (Result<[Service], GATTFailure>) -> Void) {
        enqueue { [self] done in
            var found: [Service] = []
            func step(_ start: UInt16) {
                request(.readByGroupTypeRequest(ATTReadByGroupTypeRequest(startingHandle: start, endingHandle: 0xFFFF,
                                                                         attributeGroupType: BluetoothUUID(uint16: 0x2800)))) { r in
                    switch r {
                    case .success(.readByGroupTypeResponse(let rs)):
                        for e in rs.attributeDataList { if let u = e.uuid { found.append(Service(uuid: u, startHandle: e.handle, endHandle: e.endGroupHandle)) } }
                        let last = rs.attributeDataList.map(\.endGroupHandle).max() ?? 0xFFFF
                        if last >= 0xFFFF || last < start { completion(.success(found)); done() } else { step(last + 1) }
                    case .failure(.att(.attributeNotFound, _)): completion(.success(found)); done()
                    case .failure(let f): completion(.failure(f)); done()
                    case .success: completion(.failure(.invalid("unexpected response to Read By Group Type"))); done()
                    }
                }
            }
            step(1)
        }
    }

    public func discoverCharacteristics(of s: Service, _ completion: @escaping (Result<[Characteristic], GATTFailure>) -> Void) {
        enqueue { [self] done in
            var found: [Characteristic] = []
            func finish(_ r: Result<[Characteristic], GATTFailure>) {
                if case .success(var list) = r {
                    for i in list.indices {
                        list[i].endHandle = i + 1 < list.count ? list[i + 1].declarationHandle - 1 : s.endHandle
                    }
                    completion(.success(list))
                } else {
                    completion(r)
                }
                done()
            }
            func step(_ start: UInt16) {
                guard start <= s.endHandle, start != 0 else { finish(.success(found)); return }
                request(.readByTypeRequest(ATTReadByTypeRequest(startingHandle: start, endingHandle: s.endHandle,
                                                                attributeType: BluetoothUUID(uint16: 0x2803)))) { r in
                    switch r {
                    case .success(.readByTypeResponse(let rs)):
                        for e in rs.attributeDataList where e.value.count == 5 || e.value.count == 19 {
                            guard let uuid = BluetoothUUID(littleEndian: e.value[3...]) else { continue }
                            found.append(Characteristic(uuid: uuid, declarationHandle: e.handle,
                                                        valueHandle: UInt16(e.value[1]) | UInt16(e.value[2]) << 8,
                                                        properties: e.value[0], endHandle: s.endHandle))
                        }
                        let last = rs.attributeDataList.map(\.handle).max() ?? s.endHandle
                        if last >= s.endHandle || last < start { finish(.success(found)) } else { step(last + 1) }
                    case .failure(.att(.attributeNotFound, _)): finish(.success(found))
                    case .failure(let f): finish(.failure(f))
                    case .success: finish(.failure(.invalid("unexpected response to Read By Type")))
                    }
                }
            }
            step(s.startHandle)
        }
    }

    /// Find Included Services (Core v5.4 Vol 3 Part G 4.5.1): Read By Type «Include» (0x2802)
    /// over the service's range, repeated from the handle after the last include declaration in
    /// each response until Attribute Not Found or the end of the range (a 23-octet MTU carries two
    /// includes per response). An include declaration's value names the included service's UUID
    /// only when it is 16-bit (Vol 3 Part G 3.2: 6 octets, else 4); for a 128-bit one the included
    /// service's declaration is read (Read Request of its start handle: the 16-octet UUID). The
    /// includes come back in handle order.
    public func discoverIncludedServices(of s: Service, _ completion: @escaping (Result<[Service], GATTFailure>) -> Void) {
        enqueue { [self] done in
            // The included range, and its UUID when the declaration carried it.
            var found: [(start: UInt16, end: UInt16, uuid: BluetoothUUID?)] = []
            func finish(_ r: Result<[Service], GATTFailure>) { completion(r); done() }
            func resolve(_ index: Int, _ list: [Service]) {
                guard index < found.count else { return finish(.success(list)) }
                let e = found[index]
                if let uuid = e.uuid {
                    return resolve(index + 1, list + [Service(uuid: uuid, startHandle: e.start, endHandle: e.end)])
                }
                request(.readRequest(ATTReadRequest(attributeHandle: e.start))) { r in
                    switch r {
                    case .success(.readResponse(let rs)):
                        guard let uuid = BluetoothUUID(littleEndian: rs.attributeValue[...]) else {
                            return finish(.failure(.invalid("included service declaration 0x\(hex(e.start, width: 4)) holds no UUID")))
                        }
                        resolve(index + 1, list + [Service(uuid: uuid, startHandle: e.start, endHandle: e.end)])
                    case .failure(let f): finish(.failure(f))
                    case .success: finish(.failure(.invalid("unexpected response to Read")))
                    }
                }
            }
            func step(_ start: UInt16) {
                guard start <= s.endHandle, start != 0 else { return resolve(0, []) }
                request(.readByTypeRequest(ATTReadByTypeRequest(startingHandle: start, endingHandle: s.endHandle,
                                                                attributeType: BluetoothUUID(uint16: 0x2802)))) { r in
                    switch r {
                    case .success(.readByTypeResponse(let rs)):
                        for e in rs.attributeDataList where e.value.count == 6 || e.value.count == 4 {
                            found.append((UInt16(e.value[0]) | UInt16(e.value[1]) << 8, UInt16(e.value[2]) | UInt16(e.value[3]) << 8,
                                          e.value.count == 6 ? BluetoothUUID(littleEndian: e.value[4...]) : nil))
                        }
                        let last = rs.attributeDataList.map(\.handle).max() ?? s.endHandle
                        if last >= s.endHandle || last < start { resolve(0, []) } else { step(last + 1) }
                    case .failure(.att(.attributeNotFound, _)): resolve(0, [])
                    case .failure(let f): finish(.failure(f))
                    case .success: finish(.failure(.invalid("unexpected response to Read By Type")))
                    }
                }
            }
            step(s.startHandle)
        }
    }

    public func discoverDescriptors(of c: Characteristic, _ completion: @escaping (Result<[Descriptor], GATTFailure>) -> Void) {
        enqueue { [self] done in
            findDescriptors(of: c) { r in
                completion(r)
                done()
            }
        }
    }

    /// Finds a characteristic's Client Characteristic Configuration descriptor (2902) and writes
    /// `value` to it with a Write Request, as one procedure: what the app asks after it waits for
    /// both (the way CoreBluetooth's `setNotifyValue(_:for:)` runs, one command after the other).
    /// `cccd` is the descriptor's handle when already known (no Find Information then).
    /// `.success(false)`: the characteristic has no CCCD.
    public func configureClientCharacteristic(of c: Characteristic, cccd: UInt16?, value: [UInt8],
                                              _ completion: @escaping (Result<Bool, GATTFailure>) -> Void) {
        enqueue { [self] done in
            func write(_ handle: UInt16) {
                request(.writeRequest(ATTWriteRequest(attributeHandle: handle, attributeValue: value))) { r in
                    completion(r.map { _ in true })
                    done()
                }
            }
            if let cccd { return write(cccd) }
            findDescriptors(of: c) { r in
                switch r {
                case .success(let found):
                    if let d = found.first(where: { $0.uuid == BluetoothUUID(uint16: 0x2902) }) {
                        write(d.handle)
                    } else {
                        completion(.success(false))
                        done()
                    }
                case .failure(let f):
                    completion(.failure(f))
                    done()
                }
            }
        }
    }

    /// Find Information over the characteristic's descriptor range (Core v5.4 Vol 3 Part G 4.7.1).
    private func findDescriptors(of c: Characteristic, _ completion: @escaping (Result<[Descriptor], GATTFailure>) -> Void) {
        var found: [Descriptor] = []
        func step(_ start: UInt16) {
            guard start <= c.endHandle, start != 0 else { completion(.success(found)); return }
            request(.findInformationRequest(ATTFindInformationRequest(startingHandle: start, endingHandle: c.endHandle))) { r in
                switch r {
                case .success(.findInformationResponse(let rs)):
                    found += rs.information.map { Descriptor(uuid: $0.uuid, handle: $0.handle) }
                    let last = rs.information.map(\.handle).max() ?? c.endHandle
                    if last >= c.endHandle || last < start { completion(.success(found)) } else { step(last + 1) }
                case .failure(.att(.attributeNotFound, _)): completion(.success(found))
                case .failure(let f): completion(.failure(f))
                case .success: completion(.failure(.invalid("unexpected response to Find Information")))
                }
            }
        }
        step(c.valueHandle &+ 1)
    }

    /// Read Request, then Read Blob Requests while the value filled the response (long values).
    public func read(_ handle: UInt16, _ completion: @escaping (Result<[UInt8], GATTFailure>) -> Void) {
        enqueue { [self] done in
            var value: [UInt8] = []
            func received(_ part: [UInt8]) {
                value += part
                if part.count == link.mtu - 1, value.count < 512 {
                    request(.readBlobRequest(ATTReadBlobRequest(attributeHandle: handle, valueOffset: UInt16(value.count)))) { r in
                        switch r {
                        case .success(let p): received(p.value ?? [])
                        case .failure(.att(.attributeNotLong, _)), .failure(.att(.invalidOffset, _)): completion(.success(value)); done()
                        case .failure(let f): completion(.failure(f)); done()
                        }
                    }
                } else {
                    completion(.success(value))
                    done()
                }
            }
            request(.readRequest(ATTReadRequest(attributeHandle: handle))) { r in
                switch r {
                case .success(let p): received(p.value ?? [])
                case .failure(let f): completion(.failure(f)); done()
                }
            }
        }
    }

    /// The longest attribute value (Core v5.4 Vol 3 Part F 3.2.9): a long write or read stops there.
    public static let maximumAttributeValueLength = 512

    /// Write Request (queued, answered) or Write Command (sent at once, `completion` when it left).
    /// A value longer than MTU - 3 with response is written as a long write (Core v5.4 Vol 3
    /// Part G 4.9.4): Prepare Write Requests of at most MTU - 5 bytes each, every one checked
    /// against its echo, then Execute Write Request (write all); a failed or mismatched part
    /// cancels the queue (Execute Write, cancel all) and fails the write.
    public func write(_ handle: UInt16, _ value: [UInt8], withResponse: Bool,
                      _ completion: @escaping (Result<Void, GATTFailure>) -> Void) {
        if !withResponse {
            guard value.count <= link.mtu - 3 else {
                completion(.failure(.invalid("\(value.count)-byte value does not fit the ATT MTU \(link.mtu)")))
                return
            }
            transport.send(ATTPDU.writeCommand(ATTWriteCommand(attributeHandle: handle, attributeValue: value)).encoded(), on: link,
                           transmitted: { completion(.success(())) }, completion: nil)
            return
        }
        guard value.count <= Self.maximumAttributeValueLength else {
            completion(.failure(.att(.invalidAttributeValueLength, handle: handle)))
            return
        }
        enqueue { [self] done in
            if value.count <= link.mtu - 3 {
                request(.writeRequest(ATTWriteRequest(attributeHandle: handle, attributeValue: value))) { r in
                    completion(r.map { _ in () })
                    done()
                }
                return
            }
            func finish(_ r: Result<Void, GATTFailure>) { completion(r); done() }
            func cancel(then failure: GATTFailure) {
                request(.executeWriteRequest(ATTExecuteWriteRequest(flags: ATTExecuteWriteRequest.cancelAllPreparedWrites))) { _ in
                    finish(.failure(failure))
                }
            }
            func step(_ offset: Int) {
                guard offset < value.count else {
                    request(.executeWriteRequest(ATTExecuteWriteRequest(flags: ATTExecuteWriteRequest.immediatelyWriteAllPendingPreparedValues))) { r in
                        switch r {
                        case .success(.executeWriteResponse): finish(.success(()))
                        case .success: finish(.failure(.invalid("unexpected response to Execute Write")))
                        case .failure(let f): finish(.failure(f))
                        }
                    }
                    return
                }
                let part = Array(value[offset..<min(value.count, offset + max(1, link.mtu - 5))])
                request(.prepareWriteRequest(ATTPrepareWriteRequest(attributeHandle: handle, valueOffset: UInt16(offset),
                                                                    partAttributeValue: part))) { r in
                    switch r {
                    case .success(.prepareWriteResponse(let echo)):
                        if echo.attributeHandle == handle, Int(echo.valueOffset) == offset, echo.partAttributeValue == part {
                            step(offset + part.count)
                        } else {
                            cancel(then: .invalid("Prepare Write Response does not echo the part sent"))
                        }
                    case .success: cancel(then: .invalid("unexpected response to Prepare Write"))
                    case .failure(.disconnected): finish(.failure(.disconnected))
                    case .failure(.timeout): finish(.failure(.timeout))
                    case .failure(let f): cancel(then: f)
                    }
                }
            }
            step(0)
        }
    }
}
