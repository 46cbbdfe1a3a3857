/// Where capture bytes come from: a file, a pipe or stdin (a file descriptor), or memory.
///
/// Readers pull large chunks (1 MiB) from a source and never ask for the whole input, so a
/// multi-gigabyte file or an endless pipe costs one buffer of memory.
public protocol ByteSource: AnyObject {
    /// The name used in errors: the path, `<stdin>`, `<memory>`.
    var name: String { get }
    /// Reads up to `buffer.count` bytes into `buffer` and returns how many; 0 only at the end
    /// of the input. May return fewer bytes than asked (pipes); blocks until some arrive.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int
}

/// Bytes read with `read(2)` from a file descriptor: a regular file, a pipe, stdin.
public final class FileDescriptorSource: ByteSource {
    public let name: String
    public let fileDescriptor: Int32
    private let closesOnDeinit: Bool
    /// Bytes handed out so far (the offset of the next byte for a file opened at its start).
    public private(set) var position: Int = 0

    /// Opens `path` for reading; `.unreadable` names the OS reason.
    public init(path: String) throws(CaptureError) {
        do {
            fileDescriptor = try Syscall.openForReading(path)
        } catch {
            throw CaptureError(path: path, kind: .unreadable, message: "cannot open: \(error)")
        }
        name = path
        closesOnDeinit = true
        if let status = Syscall.status(fileDescriptor), status.isDirectory {
            try? Syscall.closeDescriptor(fileDescriptor)
            throw CaptureError(path: path, kind: .unreadable, message: "is a directory, not a capture file")
        }
    }

    /// Wraps an already-open descriptor (stdin is 0); closed on deinit only when asked.
    public init(fileDescriptor: Int32, name: String, closesOnDeinit: Bool = false) {
        self.fileDescriptor = fileDescriptor
        self.name = name
        self.closesOnDeinit = closesOnDeinit
    }

    deinit {
        if closesOnDeinit { try? Syscall.closeDescriptor(fileDescriptor) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        do {
            let n = try Syscall.readBytes(fileDescriptor, into: buffer)
            position += n
            return n
        } catch {
            throw CaptureError(path: name, offset: position, kind: .unreadable, message: "read failed: \(error)")
        }
    }
}

/// Bytes already in memory (fuzzing, tests, data received some other way).
public final class MemorySource: ByteSource {
    public let name: String
    public let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8], name: String = "<memory>") {
        self.bytes = bytes
        self.name = name
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(CaptureError) -> Int {
        let n = min(buffer.count, bytes.count - position)
        guard n > 0, let target = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { source in
            if let from = source.baseAddress {
                target.copyMemory(from: from + position, byteCount: n)
            }
        }
        position += n
        return n
    }
}
