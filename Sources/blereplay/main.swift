#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The command-line tool: argument parsing and dispatch only; the work is in the libraries.
signal(SIGPIPE, SIG_IGN)
let argv = Array(CommandLine.arguments.dropFirst())
let code = Dispatcher.run(argv)
exit(code.rawValue)
