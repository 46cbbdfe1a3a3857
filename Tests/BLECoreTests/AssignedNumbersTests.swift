import Testing
@testable import BLECore

/// Known answers checked against bumble 0.0.236 (`bumble/company_ids.py`, `bumble/gatt.py`,
/// `bumble/core.py`), the source the tables are generated from.
@Suite struct AssignedNumbersTests {
    @Test(arguments: [
        (UInt16(0x0000), "Ericsson AB"),             // company_ids.py line 22, the first entry
        (0x004C, "Apple, Inc."),                     // line 98
        (0x0059, "Nordic Semiconductor ASA"),        // line 111
        (0x00E0, "Google"),                          // line 246
        (0x0380, "LLC \"MEGA-F service\""),          // line 918, escaped quotes survive
        (0x0225, "Nestlé Nespresso S.A."),           // non-ASCII survives
        (0x0CFF, "Ergodriven Inc"),                  // the last entry
    ])
    func companyName(id: UInt16, name: String) {
        #expect(AssignedNumbers.companyName(id) == name)
    }

    @Test func unknownCompanyIsNil() {
        #expect(AssignedNumbers.companyName(0xFFFF) == nil)
        #expect(AssignedNumbers.companyName(0x0D00) == nil)
    }

    @Test(arguments: [
        (UInt16(0x180D), "Heart Rate"),                         // gatt.py line 70
        (0x2A37, "Heart Rate Measurement"),                     // line 174
        (0x2902, "Client Characteristic Configuration"),        // line 138
        (0x2A29, "Manufacturer Name String"),                   // line 162
        (0x2A26, "Firmware Revision String"),                   // line 159
        (0x2A24, "Model Number String"),                        // line 157
        (0x180A, "Device Information"),                         // line 69
        (0x180F, "Battery"),                                    // line 72
        (0x2A19, "Battery Level"),                              // line 179
        (0x2800, "Primary Service"),                            // line 130
        (0x2803, "Characteristic"),                             // line 133
        (0x290F, "Complete BR-EDR Transport Block Data"),       // first of three names for 0x290F
        (0x2904, "Characteristic Presentation Format"),         // Assigned Numbers 3.7; bumble shortens it
        (0x2907, "External Report Reference"),                  // Assigned Numbers 3.7; bumble shortens it
        (0x1857, "Electronic Shelf Label"),                     // written `0X1857` in gatt.py
        (0x0100, "L2CAP"),                                      // core.py line 380
        (0x1101, "SerialPort"),                                 // core.py line 385
    ])
    func uuidName16(value: UInt16, name: String) {
        #expect(AssignedNumbers.uuidName16(value) == name)
        #expect(AssignedNumbers.uuidName(BluetoothUUID(uint16: value)) == name)
    }

    /// Names bumble 0.0.236 lacks, which Wireshark has: the generator fills them from tshark's
    /// UUID table. Spelled as the SIG Assigned Numbers document 3.8 (Characteristics) spells them.
    @Test(arguments: [
        (UInt16(0x2ACC), "Fitness Machine Feature"), (0x2ACD, "Treadmill Data"), (0x2ACE, "Cross Trainer Data"),
        (0x2ACF, "Step Climber Data"), (0x2AD0, "Stair Climber Data"), (0x2AD1, "Rower Data"),
        (0x2AD2, "Indoor Bike Data"), (0x2AD3, "Training Status"), (0x2AD4, "Supported Speed Range"),
        (0x2AD5, "Supported Inclination Range"), (0x2AD6, "Supported Resistance Level Range"),
        (0x2AD7, "Supported Heart Rate Range"), (0x2AD8, "Supported Power Range"),
        (0x2AD9, "Fitness Machine Control Point"), (0x2ADA, "Fitness Machine Status"),
        (0x2A0F, "Local Time Information"), (0x2A44, "Alert Notification Control Point"),
        (0x2A46, "New Alert"), (0x2A6E, "Temperature"),
        // Where bumble's name is not the Assigned Numbers one (3.4, 3.8).
        (0x1859, "Mesh Proxy Solicitation"), (0x2BF5, "LE GATT Security Levels"),
    ])
    func namesBumbleLacks(value: UInt16, name: String) {
        #expect(AssignedNumbers.uuidName16(value) == name)
    }

    @Test func uuidNameOnlyForSIG16BitUUIDs() {
        #expect(AssignedNumbers.uuidName(BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB")!) == "Heart Rate")
        // A 32-bit SIG UUID and a vendor 128-bit UUID whose 3rd-4th bytes are 0x180D have no name.
        #expect(AssignedNumbers.uuidName(BluetoothUUID(uint32: 0x0001_180D)) == nil)
        #expect(AssignedNumbers.uuidName(BluetoothUUID("6E40180D-B5A3-F393-E0A9-E50E24DCCA9E")!) == nil)
        #expect(AssignedNumbers.uuidName16(0xFFFF) == nil)
        #expect(AssignedNumbers.uuidName16(0x0000) == nil)
    }

    @Test func appearance() {
        #expect(AssignedNumbers.appearanceCategoryName(0x000D) == "Heart Rate Sensor")
        #expect(AssignedNumbers.appearanceName(0x0340) == "Heart Rate Sensor")
        #expect(AssignedNumbers.appearanceName(0x0341) == "Heart Rate Sensor: Heart Rate Belt")
        #expect(AssignedNumbers.appearanceName(0x0000) == "Unknown")
        #expect(AssignedNumbers.appearanceName(0x0342) == "Heart Rate Sensor")  // unnamed subcategory
        #expect(AssignedNumbers.appearanceName(0xFFC0) == nil)                  // category 0x3FF
    }

    @Test func tablesAreSortedAndParallel() {
        let tables: [([UInt16], [StaticString])] = [
            (CompanyIdentifierTable.companyKeys, CompanyIdentifierTable.companyNames),
            (UUID16NameTable.uuid16Keys, UUID16NameTable.uuid16Names),
            (AppearanceCategoryTable.categoryKeys, AppearanceCategoryTable.categoryNames),
            (AppearanceSubcategoryTable.subcategoryKeys, AppearanceSubcategoryTable.subcategoryNames),
        ]
        for (keys, names) in tables {
            #expect(keys.count == names.count)
            #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
        }
        #expect(CompanyIdentifierTable.companyKeys.count == 3327)
        // Every key is found by the lookup, and finds its own name.
        for (i, k) in CompanyIdentifierTable.companyKeys.enumerated() {
            #expect(AssignedNumbers.companyName(k) == CompanyIdentifierTable.companyNames[i].description)
        }
    }
}
