#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECapture
import CBlueZ

/// The socket calls BLELive makes, each behind one small wrapper (swift-system style).
enum LiveSocket {
    /// Connects to `host`:`port` over TCP (IPv4 or IPv6, as `getaddrinfo(3)` resolves it),
    /// giving up on an address after `timeoutMilliseconds`. The descriptor is blocking.
    static func connectTCP(host: String, port: UInt16, timeoutMilliseconds: Int) throws(LiveError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            let why = rc == 0 ? "no address" : String(cString: gai_strerror(rc))
            throw LiveError(source: "tcp:\(host):\(port)", kind: .unavailable, message: why)
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let ai = entry {
            entry = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                            ai.pointee.ai_protocol)
            guard fd >= 0 else { lastError = Errno.current.description; continue }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var status = Glibc.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 ? 0 : errno
            if status == EINPROGRESS {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&entry, 1, Int32(clamping: timeoutMilliseconds)) == 1 {
                    var soError: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                    status = soError
                } else {
                    status = ETIMEDOUT
                }
            }
            if status == 0 {
                _ = fcntl(fd, F_SETFL, flags)
                return fd
            }
            lastError = Errno(code: status).description
            Glibc.close(fd)
        }
        throw LiveError(source: "tcp:\(host):\(port)", kind: .unavailable, message: lastError)
    }

    /// Opens the BlueZ monitor channel as btmon does: an `AF_BLUETOOTH` raw socket of protocol
    /// `BTPROTO_HCI`, bound to `HCI_DEV_NONE` (every controller) on `HCI_CHANNEL_MONITOR`, with
    /// `SO_TIMESTAMP` so each frame carries the kernel's receive time (libbluetooth `hci.h`).
    /// Binding needs CAP_NET_RAW.
    static func openMonitor() throws(LiveError) -> Int32 {
        let fd = socket(Int32(AF_BLUETOOTH), Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Int32(BTPROTO_HCI))
        guard fd >= 0 else {
            let error = Errno.current
            if error.code == EAFNOSUPPORT || error.code == EPROTONOSUPPORT {
                throw LiveError(source: "monitor", kind: .unavailable, message:
                    "this kernel has no Bluetooth support (AF_BLUETOOTH): use --follow, --stdin or --tcp")
            }
            throw LiveError(source: "monitor", kind: .unavailable, message: "cannot open a Bluetooth socket: \(error)")
        }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(HCI_DEV_NONE)
        address.hci_channel = UInt16(HCI_CHANNEL_MONITOR)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
        }
        guard bound == 0 else {
            let error = Errno.current
            Glibc.close(fd)
            if error.code == EPERM || error.code == EACCES {
                throw LiveError(source: "monitor", kind: .permission, message:
                    "the Bluetooth monitor channel needs CAP_NET_RAW: run as root, or grant it with "
                    + "`sudo setcap cap_net_raw+ep $(command -v blereplay)` (\(error))")
            }
            throw LiveError(source: "monitor", kind: .unavailable, message: "cannot bind the Bluetooth monitor channel: \(error)")
        }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Receives one datagram (one monitor frame) with `recvmsg(2)`: its length, whether the
    /// kernel cut it (`MSG_TRUNC`), and the `SCM_TIMESTAMP` receive time in µs since the Unix
    /// epoch when the socket sends one.
    static func receiveDatagram(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer)
        throws(Errno) -> (count: Int, truncated: Bool, timestamp: Int64?) {
        let controlSize = 128
        let control = UnsafeMutableRawPointer.allocate(byteCount: controlSize, alignment: 16)
        let vector = UnsafeMutablePointer<iovec>.allocate(capacity: 1)
        defer {
            control.deallocate()
            vector.deallocate()
        }
        vector.initialize(to: iovec(iov_base: buffer.baseAddress, iov_len: buffer.count))
        var message = msghdr()
        message.msg_iov = vector
        message.msg_iovlen = 1
        message.msg_control = control
        message.msg_controllen = controlSize
        var n: Int
        repeat { n = recvmsg(fd, &message, 0) } while n < 0 && errno == EINTR
        if n < 0 { throw Errno.current }
        let truncated = message.msg_flags & Int32(MSG_TRUNC) != 0
        let stamp = timestamp(in: UnsafeRawBufferPointer(start: control, count: min(Int(message.msg_controllen), controlSize)))
        return (n, truncated, stamp)
    }

    /// Walks the control messages (`struct cmsghdr`: length, level, type, then data aligned to
    /// the word size) for `SOL_SOCKET`/`SCM_TIMESTAMP` carrying a `struct timeval`.
    static func timestamp(in control: UnsafeRawBufferPointer) -> Int64? {
        let word = MemoryLayout<Int>.size
        let headerSize = MemoryLayout<cmsghdr>.size
        var offset = 0
        while offset + headerSize <= control.count {
            let header = control.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
            let length = Int(header.cmsg_len)
            guard length >= headerSize, offset + length <= control.count else { return nil }
            let dataOffset = offset + (headerSize + word - 1) / word * word
            if header.cmsg_level == SOL_SOCKET && header.cmsg_type == SO_TIMESTAMP,
               dataOffset + MemoryLayout<timeval>.size <= offset + length {
                let time = control.loadUnaligned(fromByteOffset: dataOffset, as: timeval.self)
                return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec)
            }
            offset += (length + word - 1) / word * word
        }
        return nil
    }
}
