/// Runs every reader over `data` in memory, for fuzzers (libFuzzer's `LLVMFuzzerTestOneInput`
/// calls this). Writes nothing to disk; any input must end in records, warnings or a thrown
/// `CaptureError`, never a crash.
public func fuzzCaptureReaders(_ data: UnsafeRawBufferPointer) {
    let bytes = [UInt8](data)
    let limit = 100_000

    func drain(_ reader: inout some CaptureReader) {
        var count = 0
        while count < limit, let record = try? reader.next() {
            _ = record.payload.count
            count += 1
        }
        _ = reader.warnings
        _ = reader.bytesRead
    }

    // Detection and the generic entry point.
    _ = CaptureFile.detect(prefix: bytes)
    if var reader = try? CaptureFile.open(source: MemorySource(bytes, name: "<fuzz>")) {
        var count = 0
        while count < limit, (try? reader.next()) != nil { count += 1 }
    }
    // Each reader on its own, whatever the detection said.
    if var reader = try? BtsnoopReader(source: MemorySource(bytes)) { drain(&reader) }
    if var reader = try? PacketLoggerReader(source: MemorySource(bytes)) { drain(&reader) }
    if var reader = try? BtsnoozReader(source: MemorySource(bytes)) { drain(&reader) }
    if !bytes.isEmpty, var reader = try? PcapReader(bytes: bytes) { drain(&reader) }
}
