#if canImport(Glibc)
import Glibc
#endif
import BLECapture

/// libFuzzer entry point: every capture reader on arbitrary bytes. A crash, trap or hang is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCaptureReadersEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzCaptureReaders(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

// SwiftPM gives an executable its own entry point, so libFuzzer's `main` is not used: hand
// control to libFuzzer's driver instead (LLVMFuzzerRunDriver, libFuzzer's documented API).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { data, size in
    guard let data else { return 0 }
    return fuzzCaptureReadersEntry(data, size)
})
