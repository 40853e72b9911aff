import NIOCore
import PostgresNIO
import TVETokens

/// The two forms of a statement over several keys.
extension PostgresReplayGuard {
    /// From this many keys a statement packs them (below, the plain form costs the database less).
    static let packedBatchSize = 16

    /// A few keys: `unnest` arrays in, one row per first use out.
    func insertAsRows(
        _ unique: [(key: TokenReplayKey, expiresAt: Int64)], now: Int64, table quoted: String
    ) async throws -> Set<TokenReplayKey> {
        let keyList = unique.map { Self.buffer($0.key) }
        let expiries = unique.map(\.expiresAt)
        let rows: [ByteBuffer]
        if usesPreparedStatements {
            rows = try await execute(PreparedReplayStatements.InsertRows(keys: keyList, expiries: expiries, now: now))
        } else {
            rows = try await query(
                """
                    INSERT INTO \(unescaped: quoted) (key, expires_at) SELECT * FROM unnest(\(keyList)::bytea[], \(expiries)::int8[])
                ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE \(unescaped: quoted).expires_at <= \(now)
                RETURNING key
                """
            ).map { try $0.decode(ByteBuffer.self) }
        }
        var inserted = Set<TokenReplayKey>(minimumCapacity: unique.count)
        for buffer in rows {
            if buffer.readableBytes == 32 { inserted.insert(buffer.withUnsafeReadableBytes { TokenReplayKey(sha256Digest: $0) }) }
        }
        return inserted
    }

    /// Many keys: one bytea of 32-byte digests in, one bytea of the first uses out (no buffer per key to encode, no row
    /// per key to decode).
    func insertPacked(
        _ unique: [(key: TokenReplayKey, expiresAt: Int64)], now: Int64, table quoted: String
    ) async throws -> Set<TokenReplayKey> {
        var keyBytes = ByteBufferAllocator().buffer(capacity: unique.count * 32)
        for entry in unique { Self.write(entry.key, to: &keyBytes) }
        let expiries = unique.map(\.expiresAt)
        let returned: ByteBuffer?
        if usesPreparedStatements {
            returned = try await execute(PreparedReplayStatements.InsertPacked(keys: keyBytes, expiries: expiries, now: now)).first
        } else {
            returned = try await query(
                """
                    WITH inserted AS (INSERT INTO \(unescaped: quoted) (key, expires_at)
                SELECT substring(\(keyBytes)::bytea FROM ((i - 1) * 32 + 1)::int4 FOR 32), e FROM unnest(\(expiries)::int8[]) WITH ORDINALITY AS t(e, i)
                ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE \(unescaped: quoted).expires_at <= \(now)
                RETURNING key)
                SELECT coalesce(string_agg(key, ''::bytea), ''::bytea) FROM inserted
                """
            ).first?.decode(ByteBuffer.self)
        }
        var inserted = Set<TokenReplayKey>(minimumCapacity: unique.count)
        if let returned {
            returned.withUnsafeReadableBytes { bytes in
                var offset = 0
                while offset + 32 <= bytes.count {
                    inserted.insert(TokenReplayKey(sha256Digest: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 32])))
                    offset += 32
                }
            }
        }
        return inserted
    }
}
