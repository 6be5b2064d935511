import PetSpotJSON
import PetSpotViews

// rpc.discover, daemon.info, species.list: what the daemon is and offers.

/// `rpc.discover`: the OpenRPC document of what this caller may use.
public enum RPCDiscover: RPCMethodSpec {
    public static let name = "rpc.discover"
    public typealias Params = NoParams

    /// The document, as `ProtocolContract.openRPC` makes it.
    public struct Result: RPCResultCoding, Equatable {
        public let json: JSONValue

        public init(json: JSONValue) throws(FlowViewError) {
            let document = try WireObject(json, at: "result")
            _ = try document.string("openrpc")
            _ = try document.objects("methods") { $0 }
            self.json = json
        }

        public init(document: JSONValue) {
            self.json = document
        }
    }

    public static let contract = MethodContract(
        name, "This document: the methods this caller may use, their params, results and errors",
        result: "openrpcDocument", .object(["openrpc": .string(), "info": .any("OpenRPC info"), "methods": .array(.any("OpenRPC method")),
                                            "components": .any("OpenRPC components"), "x-notifications": .array(.any("A notification"))]),
        example: ("the document, cut to daemon.info", [:], ProtocolExamples.document))
}

/// `daemon.info`: the daemon's name, version, protocol revision, providers and limits.
public enum DaemonInfo: RPCMethodSpec {
    public static let name = "daemon.info"
    public typealias Params = NoParams

    public struct Result: RPCResultCoding, Equatable {
        /// One limit of docs/OPERATIONS.md, by its name under `limits`.
        public struct Limit: Sendable, Equatable {
            public let name: String
            public let value: Int

            public init(_ name: String, _ value: Int) {
                self.name = name
                self.value = value
            }
        }

        public let name: String
        public let version: String
        public let protocolVersion: Int
        /// `box.name`: the name the box's reports carry on the animal list; nil from a daemon
        /// older than revision 5.
        public let box: String?
        public let locationProviders: [String]
        public let limits: [Limit]

        public init(version: String, box: String, locationProviders: [String], limits: [Limit]) {
            self.name = "petspotd"
            self.version = version
            self.protocolVersion = petspotProtocolVersion
            self.box = box
            self.locationProviders = locationProviders
            self.limits = limits
        }

        /// The value of the limit named `name`.
        public func limit(_ name: String) -> Int? {
            limits.first { $0.name == name }?.value
        }

        public var json: JSONValue {
            [
                "name": .string(name),
                "version": .string(version),
                "protocolVersion": .int(protocolVersion),
                "box": .optional(box),
                "locationProviders": .array(locationProviders.map(JSONValue.string)),
                "limits": .object(JSONObject(members: limits.map { (key: $0.name, value: .int($0.value)) })),
            ]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            let limits = try wire.object("limits")
            var read: [Limit] = []
            for member in limits.object.members {
                read.append(Limit(member.key, try limits.int(member.key)))
            }
            name = try wire.string("name")
            version = try wire.string("version")
            protocolVersion = try wire.int("protocolVersion")
            box = wire.has("box") ? try wire.optionalString("box") : nil
            locationProviders = try wire.strings("locationProviders")
            self.limits = read
        }
    }

    public static let contract = MethodContract(
        name, "The daemon's name, version, protocol revision, box name, location providers and limits",
        result: "info", .object([
            "name": .constant("petspotd"),
            "version": .string(),
            "protocolVersion": .integer(1...Int(Int32.max)),
            "box": .string("box.name: the name this box's reports carry on the animal list"),
            "locationProviders": .array(.string()),
            "limits": .map(of: .integer(0...Int.max), "Each limit of docs/OPERATIONS.md by its name under limits"),
        ]),
        example: ("the daemon", [:], Result(version: petspotdVersion, box: ProtocolExamples.box, locationProviders: ["gpsd"], limits: ProtocolExamples.limits).json))
}

/// `species.list`: the species a report may name, in the locale's words.
public enum SpeciesList: RPCMethodSpec {
    public static let name = "species.list"

    public typealias Params = LocaleParams

    public struct Result: RPCResultCoding, Equatable {
        public let species: [FlowView.Option]

        public init(species: [FlowView.Option]) {
            self.species = species
        }

        public var json: JSONValue {
            ["species": .array(species.map(\.json))]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            species = try WireObject(json, at: "result").objects("species") { (o) throws(FlowViewError) in try FlowView.Option(o) }
        }
    }

    public static let contract = MethodContract(
        name, "The species a report may name, in the locale's words", params: [ProtocolContract.locale],
        result: "species", .object(["species": .array(.ref("Option"))]),
        example: ("in Polish", LocaleParams(locale: .pl).json, Result(species: ProtocolExamples.speciesInPolish).json))
}
