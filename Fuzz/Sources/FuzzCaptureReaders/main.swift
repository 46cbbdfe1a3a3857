import BLECapture
import FuzzDriver

/// libFuzzer entry point: every capture reader on arbitrary bytes. A crash, trap or hang is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCaptureReadersEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzCaptureReaders(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

runFuzzer { data, size in
    guard let data else { return 0 }
    return fuzzCaptureReadersEntry(data, size)
}
