import PetSpotJSON
import PetSpotViews

// animals.*: the animal list, for every user of the socket: the missing pets the box knows,
// each shown as the caller may see it (REPORTS.md, "The animal list").

/// Where a listing measures from: `{latitude, longitude}`.
public struct AnimalPosition: Sendable, Equatable {
    public let latitude: JSONNumber
    public let longitude: JSONNumber

    public init(latitude: JSONNumber, longitude: JSONNumber) {
        self.latitude = latitude
        self.longitude = longitude
    }

    var json: JSONValue {
        ["latitude": .number(latitude), "longitude": .number(longitude)]
    }

    init(_ wire: WireObject) throws(FlowViewError) {
        self.init(latitude: try wire.number("latitude"), longitude: try wire.number("longitude"))
    }

    static let schema = JSONSchema.object(["latitude": .number(-90...90), "longitude": .number(-180...180)])
}

/// `animals.list`: missing animals, nearest first from `near` (or from the box), a page at a time.
public enum AnimalsList: RPCMethodSpec {
    public static let name = "animals.list"

    /// The largest radius asked for: half the Earth's circumference, which takes in everything.
    public static let maxRadiusKm = 20_038

    public struct Params: RPCParamsCoding, Equatable {
        public var near: AnimalPosition?
        /// Only animals last seen within this many km of the origin; needs an origin.
        public var radiusKm: JSONNumber?
        /// A species id of `species.list`.
        public var species: String?
        public var limit: Int?
        /// The `cursor` of the page before: the same listing goes on.
        public var cursor: String?

        public init(near: AnimalPosition? = nil, radiusKm: JSONNumber? = nil, species: String? = nil, limit: Int? = nil, cursor: String? = nil) {
            (self.near, self.radiusKm, self.species, self.limit, self.cursor) = (near, radiusKm, species, limit, cursor)
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            near = try p.optionalPosition("near").map { AnimalPosition(latitude: $0.latitude, longitude: $0.longitude) }
            radiusKm = try p.optionalNumber("radiusKm", in: 0...AnimalsList.maxRadiusKm)
            species = try p.optionalString("species")
            limit = try p.optionalInt("limit", in: 1...bounds.maxReportsPage)
            cursor = try p.optionalString("cursor")
            try p.finish()
        }

        public var json: JSONObject {
            JSONObject(presentMembers: ["near": near?.json, "radiusKm": radiusKm.map(JSONValue.number), "species": species.map(JSONValue.string),
                                        "limit": limit.map { .int($0) }, "cursor": cursor.map(JSONValue.string)])
        }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let animals: [Animal]
        /// Where distances are measured from; nil: the list is newest first.
        public let near: AnimalPosition?
        /// Where the next page starts; nil at the end.
        public let cursor: String?

        public init(animals: [Animal], near: AnimalPosition?, cursor: String?) {
            self.animals = animals
            self.near = near
            self.cursor = cursor
        }

        public var json: JSONValue {
            ["animals": .array(animals.map(\.json)), "near": near?.json ?? .null, "cursor": .optional(cursor)]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(animals: try wire.objects("animals") { (a) throws(FlowViewError) in try Animal(a) },
                      near: try wire.optionalObject("near").map { (n) throws(FlowViewError) in try AnimalPosition(n) },
                      cursor: try wire.optionalString("cursor"))
        }
    }

    public static let contract = MethodContract(
        name, "Missing animals the box knows, nearest first from near (or the box's own position), else newest first, a page at a time",
        params: [.init("near", AnimalPosition.schema, "Where to measure from; the box's own position when left out and the caller may have it"),
                 .init("radiusKm", .number(0...maxRadiusKm), "Only those last seen within this many km; needs an origin"),
                 .init("species", .string("An id of species.list"), "Only this species"),
                 .init("limit", .integer(1...ParamBounds.widest.maxReportsPage, "At most the daemon's limits.maxReportsPage"), "Animals on this page; 20 when left out"),
                 .init("cursor", .string(), "The cursor of the page before; the other params must be as they were")],
        result: "page", .object(["animals": .array(.ref("Animal")), "near": .nullable(AnimalPosition.schema),
                                 "cursor": .nullable(.string("null at the end"))]),
        errors: [.storageFailed],
        example: ("near a place", Params(near: ProtocolExamples.searchedFrom, radiusKm: JSONNumber(5), limit: 20).json,
                  Result(animals: [ProtocolExamples.animal(.publicView)], near: ProtocolExamples.searchedFromAnswered, cursor: nil).json))
}

/// The answer of a method about one animal.
public struct AnimalAnswer: RPCResultCoding, Equatable {
    public let animal: Animal

    public init(animal: Animal) {
        self.animal = animal
    }

    public var json: JSONValue { ["animal": animal.json] }

    public init(json: JSONValue) throws(FlowViewError) {
        animal = try Animal(try WireObject(json, at: "result").object("animal"))
    }
}

/// The params of a method that takes only an animal's id.
public struct AnimalIDParams: RPCParamsCoding, Equatable {
    public var animalId: String

    public init(animalId: String) {
        self.animalId = animalId
    }

    public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
        animalId = try p.requiredString("animalId")
        try p.finish()
    }

    public var json: JSONObject { ["animalId": .string(animalId)] }

    static let contract = MethodContract.Param("animalId", .string(), required: true, "The animal's id, as animals.list gives it")
}

/// `animals.get`: one missing animal, as the caller may see it.
public enum AnimalsGet: RPCMethodSpec {
    public static let name = "animals.get"
    public typealias Params = AnimalIDParams
    public typealias Result = AnimalAnswer

    public static let contract = MethodContract(
        name, "One missing animal, as the caller may see it", params: [AnimalIDParams.contract],
        result: "animal", .object(["animal": .ref("Animal")]), errors: [.animalNotFound, .storageFailed],
        example: ("for the public", Params(animalId: ProtocolExamples.reportID).json, Result(animal: ProtocolExamples.animal(.publicView, measured: false)).json))
}

/// `animals.photo`: a missing animal's photo, the bytes `animal.photo` describes.
public enum AnimalsPhoto: RPCMethodSpec {
    public static let name = "animals.photo"
    public typealias Params = AnimalIDParams

    public typealias Result = PhotoData

    public static let contract = MethodContract(
        name, "A missing animal's photo: for the public without its metadata (no EXIF position, no camera serial)",
        params: [AnimalIDParams.contract],
        result: "photo", PhotoData.schema, errors: [.animalNotFound, .photoNotFound, .storageFailed],
        example: ("a PNG", Params(animalId: ProtocolExamples.reportID).json,
                  Result(mediaType: "image/png", data: ProtocolExamples.photoBase64).json))
}

/// `animals.lookup`: the missing animals with a chip number, however it is written.
public enum AnimalsLookup: RPCMethodSpec {
    public static let name = "animals.lookup"

    public struct Params: RPCParamsCoding, Equatable {
        /// Any formatting: spaces, hyphens, full-width digits, as step 1 reads it.
        public var chipNumber: String

        public init(chipNumber: String) {
            self.chipNumber = chipNumber
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            chipNumber = try p.requiredString("chipNumber")
            try p.finish()
        }

        public var json: JSONObject { ["chipNumber": .string(chipNumber)] }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let animals: [Animal]

        public init(animals: [Animal]) {
            self.animals = animals
        }

        public var json: JSONValue { ["animals": .array(animals.map(\.json))] }

        public init(json: JSONValue) throws(FlowViewError) {
            animals = try WireObject(json, at: "result").objects("animals") { (a) throws(FlowViewError) in try Animal(a) }
        }
    }

    public static let contract = MethodContract(
        name, "The missing animals with this chip number, however it is written; none is an empty list",
        params: [.init("chipNumber", .string(), required: true, "The digits as read from the chip, in any formatting")],
        result: "animals", .object(["animals": .array(.ref("Animal"))]), errors: [.storageFailed],
        example: ("a chip read at a vet", Params(chipNumber: ProtocolExamples.chipNumberTyped).json,
                  Result(animals: [ProtocolExamples.animal(.publicView, measured: false)]).json))
}

/// `animals.watch`: the missing animals near a place now, then `animals.changed` as they come,
/// change and go.
public enum AnimalsWatch: RPCMethodSpec {
    public static let name = "animals.watch"

    public struct Params: RPCParamsCoding, Equatable {
        public var near: AnimalPosition?
        public var radiusKm: JSONNumber?

        public init(near: AnimalPosition? = nil, radiusKm: JSONNumber? = nil) {
            self.near = near
            self.radiusKm = radiusKm
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            near = try p.optionalPosition("near").map { AnimalPosition(latitude: $0.latitude, longitude: $0.longitude) }
            radiusKm = try p.optionalNumber("radiusKm", in: 0...AnimalsList.maxRadiusKm)
            try p.finish()
        }

        public var json: JSONObject {
            JSONObject(presentMembers: ["near": near?.json, "radiusKm": radiusKm.map(JSONValue.number)])
        }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let subscription: String
        /// The first page of the list now, nearest first.
        public let animals: [Animal]

        public init(subscription: String, animals: [Animal]) {
            self.subscription = subscription
            self.animals = animals
        }

        public var json: JSONValue { ["subscription": .string(subscription), "animals": .array(animals.map(\.json))] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(subscription: try wire.string("subscription"),
                      animals: try wire.objects("animals") { (a) throws(FlowViewError) in try Animal(a) })
        }
    }

    public static let contract = MethodContract(
        name, "The missing animals near a place now (a page of animals.list), then animals.changed as they are added, change or leave",
        params: [.init("near", AnimalPosition.schema, "Where to measure from; the box's own position when left out"),
                 .init("radiusKm", .number(0...AnimalsList.maxRadiusKm), "Only those last seen within this many km")],
        result: "watch", .object(["subscription": SubscriptionID.schema, "animals": .array(.ref("Animal"))]),
        errors: [.limitExceeded, .storageFailed],
        example: ("near a place", Params(near: ProtocolExamples.searchedFrom, radiusKm: JSONNumber(5)).json,
                  Result(subscription: ProtocolExamples.subscription, animals: []).json))
}
