import BLECore
import BLEDecode
import FuzzDriver

/// libFuzzer entry point: the packet decoder (HCI, ACL reassembly, L2CAP, ATT, SMP, advertising)
/// on arbitrary records. Input layout: repeated [kind u8][flags u8][length u8][payload], flags bit 0
/// the direction and bit 1 the controller index (btmon captures interleave two adapters), bits 2-4
/// the timestamp: 0 the frame's millisecond, 1-7 an extreme value (issue 17: mutation of capture
/// files never reached the ends of the 64-bit range); state carries across the records of one
/// input, as it does across a capture. Bits 5-7 give an `.other` record its raw type 11-18, the
/// Linux monitor opcodes around the control-channel records (14-17) the decoder names.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPacketDecoderEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let kinds: [PacketKind] = [.command, .event, .acl, .sco, .iso, .note, .other]
    var options = DecoderOptions()
    options.monitorRecords = true
    var decoder = PacketDecoder(options: options)
    var i = 0
    var frame = 1
    while i + 3 <= bytes.count {
        let kind = kinds[Int(bytes[i]) % kinds.count]
        let direction: Direction = bytes[i + 1] & 1 == 0 ? .sent : .received
        let controller = UInt16(bytes[i + 1] >> 1 & 1)
        let length = min(Int(bytes[i + 2]), bytes.count - i - 3)
        let payload = Array(bytes[(i + 3)..<(i + 3 + length)])
        let extremes: [Int64] = [Int64(frame) * 1000, 0, -1, .max, .min, .max - 1, .min + 1, -0x00DC_DDB3_0F2F_8000]
        let timestamp = extremes[Int(bytes[i + 1] >> 2 & 7)]
        let record = CaptureRecord(frameNumber: frame, timestamp: timestamp, direction: direction,
                                   kind: kind, payload: payload, fileOffset: i, controllerIndex: controller,
                                   rawType: kind == .other ? 11 + UInt16(bytes[i + 1] >> 5 & 7) : 0)
        _ = decoder.decode(record)
        i += 3 + length
        frame += 1
    }
    _ = decoder.finish()
    return 0
}

runFuzzer { data, size in
    guard let data else { return 0 }
    return fuzzPacketDecoderEntry(data, size)
}
