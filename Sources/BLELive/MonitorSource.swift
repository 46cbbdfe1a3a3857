import BLECore
import BLECapture

/// The BlueZ monitor channel (`--monitor`): every controller's commands, events, data and
/// the kernel's index and note records, one frame per datagram (see `MonitorFrame`).
///
/// `open()` makes the socket as btmon does (`LiveSocket.openMonitor`); `init(fileDescriptor:)`
/// reads frames from any datagram or seqpacket socket (tests feed it a `socketpair`). A frame
/// whose header does not match its length is skipped with a warning; the kernel's
/// `SCM_TIMESTAMP` is the record's time, the wall clock when there is none.
public final class MonitorSource: LiveSource {
    public let name: String
    public let fileDescriptor: Int32
    public private(set) var warnings: [String] = []
    /// Frames skipped because they were malformed or cut.
    public private(set) var skippedFrames = 0
    public var format: LiveStreamFormat? { .btsnoop(.monitor) }

    private let closesOnDeinit: Bool
    private var buffer = [UInt8](repeating: 0, count: MonitorFrame.headerLength + 65_536)
    private var frames = 0
    private var offset = 0
    private var ended = false

    /// Opens the monitor channel of this machine's Bluetooth subsystem.
    public static func open() throws(LiveError) -> MonitorSource {
        MonitorSource(fileDescriptor: try LiveSocket.openMonitor(), name: "monitor", closesOnDeinit: true)
    }

    public init(fileDescriptor: Int32, name: String = "monitor", closesOnDeinit: Bool = false) {
        self.fileDescriptor = fileDescriptor
        self.name = name
        self.closesOnDeinit = closesOnDeinit
    }

    deinit {
        if closesOnDeinit { try? Syscall.closeDescriptor(fileDescriptor) }
    }

    public func next(timeoutMilliseconds: Int) throws(LiveError) -> SourceEvent {
        if ended { return .end }
        let received: (count: Int, truncated: Bool, timestamp: Int64?)
        do {
            guard try Syscall.waitReadable(fileDescriptor, timeoutMilliseconds: timeoutMilliseconds) else { return .idle }
            let fd = fileDescriptor
            received = try buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(Errno) in try LiveSocket.receiveDatagram(fd, into: bytes) }
            }.get()
        } catch {
            throw LiveError(source: name, kind: .io, message: "receive failed: \(error)")
        }
        if received.count == 0 {
            // A seqpacket peer that closed; the kernel's monitor socket never ends by itself.
            ended = true
            return .end
        }
        let frameOffset = offset
        offset += received.count
        let frame: MonitorFrame
        do {
            guard !received.truncated else {
                throw MonitorFrame.FormatError(message: "frame larger than \(buffer.count) bytes was cut")
            }
            frame = try MonitorFrame(decoding: buffer[0..<received.count])
        } catch {
            skippedFrames += 1
            warnings.append("\(name): frame at byte \(frameOffset) skipped: \(error)")
            return .idle
        }
        frames += 1
        let stamp = received.timestamp ?? Syscall.wallClockMicroseconds()
        let record = frame.record(timestamp: stamp, frameNumber: frames, streamOffset: frameOffset)
        return .record(LiveRecord(record, original: frame.packet(timestamp: stamp), datalink: .monitor))
    }
}
