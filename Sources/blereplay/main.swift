#if canImport(Glibc)
import Glibc
import CMalloc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore

// The command-line tool: argument parsing and dispatch only; the work is in the libraries.
signal(SIGPIPE, SIG_IGN)
#if canImport(Glibc)
// Buffers of 128 KiB and more (dictionary storage, batches, a link table) are mapped on their own
// and unmapped when freed. Left to itself glibc raises that threshold to the largest block freed
// (up to 32 MiB), and later large blocks then come from the heap, where freeing them leaves holes
// the process keeps: 25 MB of resident memory on the 61,440-link adversarial captures (issue 17).
_ = mallopt(M_MMAP_THRESHOLD, 128 << 10)
_ = mallopt(M_TRIM_THRESHOLD, 128 << 10)
// `replay` runs with one malloc arena (ReplayCommand.run); the other commands keep one per
// thread, which their two-thread import pipeline allocates from at once.
#endif
// A name that is not UTF-8 would reach the libraries with U+FFFD in place of its bytes: another name.
if let invalid = ArgumentEncoding.firstInvalid(ArgumentEncoding.raw()) {
    Err.line("blereplay: \(invalid) is not valid UTF-8, and blereplay cannot open or create a file under such a name "
             + "(it would read it as another name); rename the file, or give a symbolic link with a UTF-8 name")
    exit(ExitCode.usage.rawValue)
}
let argv = Array(CommandLine.arguments.dropFirst())
let code = Dispatcher.run(argv)
// exit(3) runs no deinit: a scratch file still held on another thread (the reading thread of an
// import lets go of its reader, and a gzip capture's decompressed copy, only after handing over
// the end of the capture) would be left for the next run to clean. Nothing is in use now.
TemporaryFile.discardAllOfThisProcess()
exit(code.rawValue)
