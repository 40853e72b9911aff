import NIOCore
import PostgresNIO

/// The replay check's statements as prepared statements, for the default table (`tvekit_replay_keys`): each connection
/// parses and plans them once, then only binds and executes (parse and plan were about a fifth of the database's CPU
/// per statement). postgres-nio names a prepared statement by its type, with SQL fixed at compile time, so a table of
/// another name runs the same statements unprepared.
enum PreparedReplayStatements {
    static let table = "tvekit_replay_keys"

    /// One key: a row back when it is a first use.
    struct InsertOne: PostgresPreparedStatement {
        static let name = "tvekit_replay_insert_one"
        static let sql = """
            INSERT INTO tvekit_replay_keys (key, expires_at) VALUES ($1, $2)
            ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE tvekit_replay_keys.expires_at <= $3
            RETURNING 1
            """
        typealias Row = Int32

        var key: ByteBuffer
        var expiresAt: Int64
        var now: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(key)
            bindings.append(expiresAt)
            bindings.append(now)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int32.self) }
    }

    /// A few keys: arrays in, the first uses' keys out.
    struct InsertRows: PostgresPreparedStatement {
        static let name = "tvekit_replay_insert_rows"
        static let sql = """
            INSERT INTO tvekit_replay_keys (key, expires_at) SELECT * FROM unnest($1::bytea[], $2::int8[])
            ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE tvekit_replay_keys.expires_at <= $3
            RETURNING key
            """
        typealias Row = ByteBuffer

        var keys: [ByteBuffer]
        var expiries: [Int64]
        var now: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(keys)
            bindings.append(expiries)
            bindings.append(now)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(ByteBuffer.self) }
    }

    /// Many keys: one bytea of 32-byte digests in, one bytea of the first uses' digests out.
    struct InsertPacked: PostgresPreparedStatement {
        static let name = "tvekit_replay_insert_packed"
        static let sql = """
            WITH inserted AS (INSERT INTO tvekit_replay_keys (key, expires_at)
            SELECT substring($1::bytea FROM ((i - 1) * 32 + 1)::int4 FOR 32), e FROM unnest($2::int8[]) WITH ORDINALITY AS t(e, i)
            ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE tvekit_replay_keys.expires_at <= $3
            RETURNING key)
            SELECT coalesce(string_agg(key, ''::bytea), ''::bytea) FROM inserted
            """
        typealias Row = ByteBuffer

        var keys: ByteBuffer
        var expiries: [Int64]
        var now: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(keys)
            bindings.append(expiries)
            bindings.append(now)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(ByteBuffer.self) }
    }
}
