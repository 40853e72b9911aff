import Foundation

extension PostgresReplayGuard {
    /// Where the store is and how it behaves.
    public struct Configuration: Sendable {
        /// The database servers, in order of preference: one, or a primary and its standbys. With several, the store
        /// writes to the one that accepts writes (libpq's `target_session_attrs=read-write`), finds it again by itself
        /// after a failover (see ``hostProbeInterval``), and answers "unavailable" (fail closed) while none does.
        public var hosts: [Host]
        /// The first host's name or address (setting it replaces the first host's).
        public var host: String {
            get { hosts.first?.host ?? "" }
            set { hosts = [Host(newValue, port: port)] + hosts.dropFirst() }
        }
        /// The first host's port (setting it replaces the first host's).
        public var port: Int {
            get { hosts.first?.port ?? 5432 }
            set { hosts = [Host(host, port: newValue)] + hosts.dropFirst() }
        }
        /// The database user.
        public var username: String
        /// Never logged; pass it from an environment variable or a file.
        public var password: String?
        /// The database that holds the table.
        public var database: String
        /// The table of replay keys, created when missing (a plain identifier: letters, digits, `_`).
        public var table: String
        /// TLS: `disable`, `prefer` (the default: TLS when the server offers it) or `require`.
        public var tls: TLSMode
        /// The longest one store call may take, queueing for a connection included; the server stops a statement (and
        /// a lock wait) at four fifths of it, before the client gives up. A call past it answers "unavailable" and the
        /// verification fails closed.
        public var timeout: Duration
        /// The connection pool's size.
        public var maximumConnections: Int
        /// How many statements the guard keeps in flight at once (2 by default); checks that arrive meanwhile, single
        /// tokens and batches alike, share the next statement (one commit for the group). Measured on one server core
        /// (16 connections), single tokens: 1 gave 14.8–15.3k first uses/s at 0.77 of the core, 2 gave 15.8–15.9k at 0.88,
        /// 4 gave 13.9–14.3k at 0.87; batches of 64: 1 gave 57–58k keys/s, 2 gave 61–62k, 4 gave 59k.
        public var maximumConcurrentStatements: Int
        /// How often expired keys are pruned, and how many rows one prune statement deletes at most (small enough that a
        /// statement fits the timeout; a round of 100 statements every 5 s keeps up with 40,000 new keys a second).
        public var pruneInterval: Duration
        /// The most rows one prune statement deletes (2000 by default).
        public var pruneBatchSize: Int
        /// The most prune statements per round (so that a backlog is worked off over several rounds).
        public var maximumPruneBatchesPerRound: Int
        /// With several ``hosts``: how often the store asks them which accepts writes while it knows none (after a
        /// connection to the writable one broke, or it refused a write), and, ten times as seldom, whether the one it
        /// writes to still does. Each question is bounded by the ``timeout`` (at least 1 s). 250 ms by default: a
        /// promoted standby is found within about a second and a quarter of its promotion.
        public var hostProbeInterval: Duration

        /// One database server: a host name or address and a port.
        public struct Host: Sendable, Hashable, CustomStringConvertible {
            /// The host name or address (an IPv6 address without brackets).
            public var host: String
            /// The port (5432 by default).
            public var port: Int

            /// A server at `host`:`port`.
            public init(_ host: String, port: Int = 5432) {
                self.host = host
                self.port = port
            }

            /// `host:port`, an IPv6 address in brackets.
            public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
        }

        /// Whether the connections use TLS (NIO SSL's default client configuration); the raw values are those of `sslmode`
        /// in the URL.
        public enum TLSMode: String, Sendable, Hashable {
            /// `disable`: never TLS; `prefer`: TLS when the server offers it; `require`: TLS or no connection.
            case disable, prefer, require
        }

        /// A store on `host`. By default: port 5432, table `tvekit_replay_keys`, TLS when offered, a 250 ms timeout, 16
        /// connections, 2 statements in flight, and a prune round of at most 100 batches of 2000 rows every 5 s.
        ///
        /// The limits are checked when a ``PostgresReplayGuard`` is made with it (``ReplayStoreError`` `.invalidTableName`
        /// or `.invalidLimit`): a lower-case table name of at most 63 characters, a timeout of 1 ms to 60 s, 1 to 1000
        /// connections, 1 to `maximumConnections` statements in flight, 1 to 1,000,000 rows per prune batch, 1 to 1000
        /// batches per round, and a prune interval of at least 10 ms.
        public init(
            host: String, port: Int = 5432, username: String, password: String?, database: String, table: String = "tvekit_replay_keys",
            tls: TLSMode = .prefer, timeout: Duration = .milliseconds(250), maximumConnections: Int = 16,
            maximumConcurrentStatements: Int = 2,
            pruneInterval: Duration = .seconds(5), pruneBatchSize: Int = 2000, maximumPruneBatchesPerRound: Int = 100
        ) {
            self.init(
                hosts: [Host(host, port: port)], username: username, password: password, database: database, table: table, tls: tls,
                timeout: timeout, maximumConnections: maximumConnections, maximumConcurrentStatements: maximumConcurrentStatements,
                pruneInterval: pruneInterval, pruneBatchSize: pruneBatchSize, maximumPruneBatchesPerRound: maximumPruneBatchesPerRound)
        }

        /// A store on several servers, a primary and its standbys in any order (see ``hosts``); the other values as in
        /// ``init(host:port:username:password:database:table:tls:timeout:maximumConnections:maximumConcurrentStatements:pruneInterval:pruneBatchSize:maximumPruneBatchesPerRound:)``,
        /// and a ``hostProbeInterval`` of 250 ms. At most 16 hosts.
        public init(
            hosts: [Host], username: String, password: String?, database: String, table: String = "tvekit_replay_keys",
            tls: TLSMode = .prefer, timeout: Duration = .milliseconds(250), maximumConnections: Int = 16,
            maximumConcurrentStatements: Int = 2,
            pruneInterval: Duration = .seconds(5), pruneBatchSize: Int = 2000, maximumPruneBatchesPerRound: Int = 100
        ) {
            self.hosts = hosts
            self.username = username
            self.password = password
            self.database = database
            self.table = table
            self.tls = tls
            self.timeout = timeout
            self.maximumConnections = maximumConnections
            self.maximumConcurrentStatements = maximumConcurrentStatements
            self.pruneInterval = pruneInterval
            self.pruneBatchSize = pruneBatchSize
            self.maximumPruneBatchesPerRound = maximumPruneBatchesPerRound
            hostProbeInterval = .milliseconds(250)
        }

        /// The URL without a password (for logs).
        public var redactedURL: String {
            "postgres://\(username)@\(hosts.map(\.description).joined(separator: ","))/\(database)"
        }

        func validate() throws(ReplayStoreError) {
            guard table.utf8.count <= 63, let first = table.unicodeScalars.first, first == "_" || ("a"..."z").contains(first),
                table.unicodeScalars.allSatisfy({ $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) })
            else {
                throw ReplayStoreError(.invalidTableName, "the table name must be a lower-case SQL identifier of at most 63 characters")
            }
            guard timeout >= .milliseconds(1), timeout <= .seconds(60) else {
                throw ReplayStoreError(.invalidLimit, "the timeout must be 1 ms to 60 s")
            }
            guard (1...16).contains(hosts.count),
                hosts.allSatisfy({ !$0.host.isEmpty && $0.host.utf8.count <= 255 && (1...65535).contains($0.port) }),
                Set(hosts).count == hosts.count
            else {
                throw ReplayStoreError(.invalidLimit, "the store needs 1 to 16 different hosts, each with a name and a port of 1 to 65535")
            }
            guard hostProbeInterval >= .milliseconds(10), hostProbeInterval <= .seconds(60) else {
                throw ReplayStoreError(.invalidLimit, "the host probe interval must be 10 ms to 60 s")
            }
            guard (1...1000).contains(maximumConnections), (1...maximumConnections).contains(maximumConcurrentStatements),
                (1...1_000_000).contains(pruneBatchSize),
                (1...1000).contains(maximumPruneBatchesPerRound), pruneInterval >= .milliseconds(10)
            else {
                throw ReplayStoreError(.invalidLimit, "the pool size, the prune batch and the prune interval are out of range")
            }
        }
    }
}

extension PostgresReplayGuard.Configuration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The store without its password, so that printing or logging a configuration cannot leak it.
    public var description: String {
        "\(redactedURL) table \(table), tls \(tls.rawValue), timeout \(timeout), pool \(maximumConnections)"
    }

    public var debugDescription: String { description }

    /// `dump` and the debugger see every field but the password.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "hosts": hosts, "username": username, "password": password == nil ? "nil" : "<redacted>",
                "database": database, "table": table, "tls": tls, "timeout": timeout, "maximumConnections": maximumConnections,
                "maximumConcurrentStatements": maximumConcurrentStatements, "pruneInterval": pruneInterval,
                "pruneBatchSize": pruneBatchSize, "maximumPruneBatchesPerRound": maximumPruneBatchesPerRound,
                "hostProbeInterval": hostProbeInterval,
            ])
    }
}
