/// The decoder's tables: built once from the alphabets, and kept where the hot path reads them without reference
/// counting.
extension Base64Codec {
    /// 0...63 for alphabet symbols, 0xFE for `=`, 0xFD for whitespace, 0xFF for anything else.
    static let standardTable: [UInt8] = makeTable(standardAlphabet)
    static let urlTable: [UInt8] = makeTable(urlAlphabet)

    /// The fast path's tables: four tables of 256 entries, one per position in a group of four symbols, with each
    /// symbol's value already shifted into place (by 18, 12, 6 and 0 bits). ORing the four entries of a group gives
    /// its 24 bits; every byte that is not an alphabet symbol (`=`, whitespace, anything else) maps to 0xFFFFFFFF,
    /// so one comparison of the OR with 2^24 checks the whole group.
    static let standardGroupTable: [UInt32] = makeGroupTable(standardTable)
    static let urlGroupTable: [UInt32] = makeGroupTable(urlTable)

    /// The decoder's two tables for one alphabet, copied once into memory that lives for the process: the decoder
    /// reads them through these pointers, so a call retains and releases no array (that was a twelfth of a media
    /// token's parse, which decodes twice).
    struct DecodingTables {
        let table: UnsafeBufferPointer<UInt8>
        let groupTable: UnsafeBufferPointer<UInt32>

        init(_ table: [UInt8], _ groupTable: [UInt32]) {
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: table.count)
            _ = copy.initialize(from: table)
            let groupCopy = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: groupTable.count)
            _ = groupCopy.initialize(from: groupTable)
            self.table = UnsafeBufferPointer(copy)
            self.groupTable = UnsafeBufferPointer(groupCopy)
        }
    }

    // nonisolated(unsafe): written once by these initialisers, only read afterwards.
    nonisolated(unsafe) static let standardTables = DecodingTables(standardTable, standardGroupTable)
    nonisolated(unsafe) static let urlTables = DecodingTables(urlTable, urlGroupTable)

    private static func makeTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(value) }
        table[Int(UInt8(ascii: "="))] = 0xFE
        for space in [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n")] {
            table[Int(space)] = 0xFD
        }
        return table
    }

    private static func makeGroupTable(_ table: [UInt8]) -> [UInt32] {
        var groupTable = [UInt32](repeating: 0xFFFF_FFFF, count: 1024)
        for slot in 0..<4 {
            for byte in 0..<256 where table[byte] < 64 {
                groupTable[slot * 256 + byte] = UInt32(table[byte]) << UInt32(18 - 6 * slot)
            }
        }
        return groupTable
    }
}
