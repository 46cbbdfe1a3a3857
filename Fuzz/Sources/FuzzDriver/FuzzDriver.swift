#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer's driver entry point (`LLVMFuzzerRunDriver`, libFuzzer's documented API), linked
/// in by `-sanitize=fuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// Hands the process to libFuzzer with `test` as the function under test, and exits with the
/// driver's status.
///
/// SwiftPM gives an executable its own entry point, so libFuzzer's `main` is not used: each
/// fuzz target's `main.swift` calls this with a closure that calls its
/// `LLVMFuzzerTestOneInput` (which the target still defines: libFuzzer's `main` refers to it).
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argc, &argv, test))
}
