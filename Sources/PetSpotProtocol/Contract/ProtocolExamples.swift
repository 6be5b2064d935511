import PetSpotJSON
import PetSpotViews

/// The examples of the OpenRPC document: one report made from start to end, in English, on a
/// box whose location comes from gpsd, call by call, each answer whole as the daemon writes it
/// (the views here go through the same writers as the daemon's). A client generated from the
/// document can hold its own examples to its schemas; OpenRPCExamplesTests replays the story
/// on a live daemon and holds every answer to its example.
///
/// The flow's screens are written out here because this module does not build them
/// (PetSpotFlow does, and does not import the wire); that replay is what keeps them its words.
enum ProtocolExamples {
    // Values the daemon chooses: ids and times.
    static let flowID = "3f2b9c4e-8a1d-4c6f-9e2b-7d5a1c3e8f60"
    static let reportID = "9a4d7e21-c3b8-4f05-8d6a-2e1f5b7c9a34"
    /// The flow started and cancelled beside the report.
    static let cancelledFlowID = "c81e4a27-5b3f-4d9a-a6e1-0f7b2d94c358"
    /// The first watch of a connection.
    static let subscription = "w1"
    static let fixTime = "2026-11-26T12:02:10Z"
    static let submittedAt = "2026-11-26T12:04:31Z"
    static let deliveredAt = "2026-11-26T12:04:33Z"

    // What the person sends.
    static let chipNumberTyped = "616 0912 3456 7890"
    /// A PNG signature and eight bytes: what the daemon takes for a PNG, and small.
    /// A PNG of one pixel: what the daemon takes for a PNG, and small; with no metadata, its
    /// copy for the public is the same bytes.
    static let photoBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    static let photoSHA256 = "6b7fa434f92a8b80aab02d9bf1a12e49ffcae424e4013a1c4f68b67e3d2bbcd0"

    static let latitude = JSONNumber(validatedLiteral: "52.22968")
    static let longitude = JSONNumber(validatedLiteral: "21.01223")

    // MARK: The flow's values, step by step

    /// How far the person has got: each stage holds the values of those before it.
    enum Stage: Int, Comparable {
        case started, chip, photo, described, located, contacted

        static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
    }

    static let photo: JSONValue = ["mediaType": "image/png", "bytes": 70, "sha256": .string(photoSHA256)]

    /// Every field of the flow as stored, each from the stage that fills it.
    private static let stored: [(name: String, value: JSONValue, from: Stage)] = [
        ("chipNumber", "616091234567890", .chip),
        ("photo", photo, .photo),
        ("disappearanceDate", "2026-11-25", .described),
        ("species", "dog", .described),
        ("race", "Beagle", .described),
        ("gender", "male", .described),
        ("age", 4, .described),
        ("latitude", .number(latitude), .located),
        ("longitude", .number(longitude), .located),
        ("additionalDescription", "Brown collar, white paws", .described),
        ("contactPhone", "+48601234567", .contacted),
        ("contactEmail", "owner@example.org", .contacted),
    ]

    static func values(_ stage: Stage) -> JSONObject {
        JSONObject(members: stored.map { (key: $0.name, value: stage >= $0.from ? $0.value : .null) })
    }

    private static func value(_ name: String, _ stage: Stage) -> JSONValue {
        values(stage)[name] ?? .null
    }

    // MARK: Screens

    private static let stepActions = ["continue", "back"]

    private static func screen(_ title: String, step: Int?, text: String, fields: [FlowView.Field], actions: [String] = stepActions,
                               heading: String? = nil) -> FlowView.Screen {
        FlowView.Screen(title: title, progress: step.map { FlowView.Progress(current: $0, total: 4, label: "\($0)/4") },
                        heading: heading ?? title, text: text, fields: fields, actions: actions, toast: nil, alert: nil)
    }

    private static func field(_ name: String, _ label: String, _ placeholder: String, _ stage: Stage, display: String?,
                              required: Bool = false, helper: String? = nil, counter: String? = nil,
                              options: [FlowView.Option]? = nil) -> FlowView.Field {
        let value = value(name, stage)
        return FlowView.Field(name: name, label: label, placeholder: placeholder, value: value, display: value == .null ? nil : display,
                              required: required, enabled: true, helper: helper, counter: counter, options: options)
    }

    static func chipScreen(_ stage: Stage) -> FlowView.Screen {
        screen("Microchip number", step: 1,
               text: "Microchip identification is the most efficient way to reunite with your pet. If your pet has been microchipped and you know the microchip number, please enter it here.",
               fields: [field("chipNumber", "Microchip number (optional)", "00000-00000-00000", stage, display: "61609-12345-67890",
                              helper: stage >= .chip ? "The first three digits, 616, are an ISO 3166 numeric country code." : nil)])
    }

    /// The photo step before a photo is added.
    static let photoScreen = screen("Animal photo", step: 2, text: "A clear, recent photo helps others recognise your pet.",
                                    fields: [field("photo", "Animal photo (optional)", "No photo added", .started, display: nil,
                                                   helper: "JPEG, PNG, WebP or HEIC, up to 10 MiB.")])

    static let species: [FlowView.Option] = [
        .init(id: "dog", name: "Dog"), .init(id: "cat", name: "Cat"), .init(id: "rabbit", name: "Rabbit"),
        .init(id: "ferret", name: "Ferret"), .init(id: "guinea-pig", name: "Guinea pig"), .init(id: "hamster", name: "Hamster"),
        .init(id: "rat", name: "Rat"), .init(id: "bird", name: "Bird"), .init(id: "tortoise", name: "Tortoise"),
        .init(id: "horse", name: "Horse"), .init(id: "other", name: "Other"),
    ]

    /// The description step once its fields are filled in (`described`), and the coordinates
    /// from gpsd (`located`).
    static func descriptionScreen(_ stage: Stage) -> FlowView.Screen {
        let located = stage >= .located ? "GPS position found and filled in (source: gpsd)." : nil
        let noMore = "No other location details are collected on this step."
        return screen("Animal description", step: 3, text: "Tell us when your pet went missing and how to recognise it.", fields: [
            field("disappearanceDate", "Date of disappearance", "YYYY-MM-DD", stage, display: "25 November 2026", required: true),
            field("species", "Animal species", "Select an option", stage, display: "Dog", required: true, options: species),
            field("race", "Animal race", "e.g. Labrador", stage, display: "Beagle", required: true),
            field("gender", "Gender", "Select an option", stage, display: "Male", required: true,
                  options: [.init(id: "female", name: "Female"), .init(id: "male", name: "Male")]),
            field("age", "Animal age (optional)", "Years, 0–40", stage, display: "4 years"),
            field("latitude", "Latitude (optional)", "e.g. 52.22977", stage, display: latitude.literal, helper: located),
            field("longitude", "Longitude (optional)", "e.g. 21.01178", stage, display: longitude.literal,
                  helper: located.map { "\($0) \(noMore)" } ?? noMore),
            field("additionalDescription", "Animal additional description (optional)", "Colour, collar, distinctive marks…", stage,
                  display: "Brown collar, white paws", counter: "24/500"),
        ], actions: stepActions + ["requestLocation"])
    }

    /// The contact step as it opens.
    static let contactScreen = screen("Contact details", step: 4,
                                      text: "How can someone who finds your pet reach you? Enter a phone number, an email address or both.", fields: [
                                          field("contactPhone", "Phone number", "+48 123 456 789", .located, display: nil),
                                          field("contactEmail", "Email address", "name@example.com", .located, display: nil),
                                      ])

    /// Every field read-only, as a person reads it.
    static let summaryScreen: FlowView.Screen = {
        let shown: [(name: String, label: String, display: String, required: Bool)] = [
            ("chipNumber", "Microchip number", "61609-12345-67890", false),
            ("photo", "Animal photo", "image/png, 70 B", false),
            ("disappearanceDate", "Date of disappearance", "25 November 2026", true),
            ("species", "Animal species", "Dog", true),
            ("race", "Animal race", "Beagle", true),
            ("gender", "Gender", "Male", true),
            ("age", "Animal age", "4 years", false),
            ("latitude", "Latitude", latitude.literal, false),
            ("longitude", "Longitude", longitude.literal, false),
            ("additionalDescription", "Animal additional description", "Brown collar, white paws", false),
            ("contactPhone", "Phone number", "+48601234567", false),
            ("contactEmail", "Email address", "owner@example.org", false),
        ]
        return screen("Summary", step: nil, text: "Check the details below. To change something, go back; when everything is right, submit the report.",
                      fields: shown.map {
                          FlowView.Field(name: $0.name, label: $0.label, placeholder: "Not provided", value: value($0.name, .contacted),
                                         display: $0.display, required: $0.required, enabled: false)
                      },
                      actions: ["submit", "back"], heading: "Check your report")
    }()

    // MARK: Flows, reports, locations

    static func active(_ step: String, _ screen: FlowView.Screen, _ stage: Stage) -> FlowView {
        FlowView(id: flowID, state: .active(.init(step: step, locale: "en", screen: screen, values: values(stage))))
    }

    static let completed = FlowView(id: flowID, state: .completed(reportID: reportID))
    static let cancelled = FlowView(id: cancelledFlowID, state: .cancelled)

    // MARK: The animal list: the report as a finder at the box sees it

    /// The box the examples' report was filed at (`box.name`).
    static let box = "kiosk-7"
    /// Another box of the fleet, and two of its reports as its relay brings them down.
    static let otherBox = "kiosk-12"
    static let fleetReportID = "5c0e8b3a-7d21-4f6e-9a45-1b3d8e6f2c70"
    static let foundFleetReportID = "e2a9f4c1-0b6d-4e83-b7a2-9c5d1f3e8a46"
    /// Where a finder searches from: a few dozen metres from where the dog was last seen.
    static let searchedFrom = AnimalPosition(latitude: JSONNumber(validatedLiteral: "52.2297"), longitude: JSONNumber(validatedLiteral: "21.0122"))
    /// The same place as a listing answers it: coordinates always with 5 decimals.
    static let searchedFromAnswered = AnimalPosition(latitude: JSONNumber(validatedLiteral: "52.22970"), longitude: JSONNumber(validatedLiteral: "21.01220"))

    enum AnimalView { case publicView, staffView }

    /// The examples' report on the animal list: for the public masked, to 3 decimals, without
    /// its chip; for staff whole. `measured`: listed from `searchedFrom`, with its distance.
    static func animal(_ view: AnimalView, measured: Bool = true) -> Animal {
        let staff = view == .staffView
        return Animal(
            id: reportID, box: box, status: .missing, chipNumber: staff ? "616091234567890" : nil, species: "dog", race: "Beagle", gender: "male",
            age: 4, disappearanceDate: "2026-11-25",
            lastSeen: staff ? .init(latitude: latitude, longitude: longitude)
                : .init(latitude: JSONNumber(validatedLiteral: "52.230"), longitude: JSONNumber(validatedLiteral: "21.012")),
            distanceKm: measured ? JSONNumber(validatedLiteral: staff ? "0.006" : "0.036") : nil, description: "Brown collar, white paws",
            photo: .init(mediaType: "image/png", bytes: 70, sha256: photoSHA256),
            contact: staff ? .init(phone: "+48601234567", email: "owner@example.org") : .init(phone: "+••••••••567", email: "o•••@example.org"),
            submittedAt: submittedAt, updatedAt: submittedAt, version: 1)
    }

    // MARK: The report's life: amended (2), renewed (3), found (4), erased (5)

    /// When each change after submit was made, and the expiry of a report missing since then.
    static let changedAt = "2026-11-26T12:10:00Z"
    static let expiresAtSubmitted = "2027-02-24T12:04:31Z"
    static let expiresAtRenewed = "2027-02-24T12:10:00Z"
    /// The phone number the owner corrects.
    static let amendedPhoneTyped = "+48 601 234 999"
    static let amended: JSONObject = ["contactPhone": "+48601234999"]

    /// The report at `version`: as filed (1), amended (2), renewed (3), found (4).
    static func report(_ delivery: ReportView.Delivery, status: ReportView.Status = .missing, version: Int = 1, renewed: Bool = false,
                       values changed: JSONObject = [:]) -> ReportView {
        let values = JSONObject(members: values(.contacted).members.map { (key: $0.key, value: changed[$0.key] ?? $0.value) })
        let expiresAt: String? = status == .missing ? (renewed ? expiresAtRenewed : expiresAtSubmitted) : nil
        return ReportView(id: reportID, flowID: flowID, submittedAt: submittedAt, status: status, version: version,
                          updatedAt: version == 1 ? submittedAt : changedAt, expiresAt: expiresAt, erased: false,
                          values: values, delivery: delivery)
    }

    /// The report after `reports.erase` (5): found, with only its species and date.
    static let erasedReport = ReportView(
        id: reportID, flowID: flowID, submittedAt: submittedAt, status: .found, version: 5, updatedAt: changedAt, expiresAt: nil, erased: true,
        values: JSONObject(members: values(.contacted).members.map { member in
            (key: member.key, value: ["species", "disappearanceDate"].contains(member.key) ? member.value : .null)
        }), delivery: .pending)

    static let fix = LocationView(status: .ok, fix: .init(latitude: Coordinate(scaled: 5_222_968), longitude: Coordinate(scaled: 2_101_223), source: "gpsd", time: fixTime,
                                                          accuracy: JSONNumber(validatedLiteral: "4.2")),
                                  message: "Position found.")
    /// The receiver has gone quiet: its last fix is older than location.maxAgeMs.
    static let fixLost = LocationView(status: .timeout, message: "No position came in time.")

    /// The limits in force with the configuration's defaults, in daemon.info's order.
    static let limits: [DaemonInfo.Result.Limit] = [
        .init("flowIdleTimeoutSeconds", 1800), .init("maxLineBytes", 16_777_216), .init("maxFlowsPerUser", 50),
        .init("maxFlows", 100_000), .init("maxConnections", 1024), .init("maxConnectionsPerUser", 128),
        .init("maxPendingOutputBytes", 4_194_304), .init("maxBufferedBytes", 268_435_456),
        .init("maxBufferedBytesPerUser", 67_108_864), .init("stalledReaderTimeoutSeconds", 30), .init("maxQueuedRequests", 1024),
        .init("maxBatchSize", 100), .init("maxJSONDepth", 64), .init("maxPhotoBytes", 10_485_760),
        .init("maxSpooledPhotoBytes", 536_870_912), .init("maxSpooledPhotoBytesPerUser", 134_217_728),
        .init("minFreeDiskBytes", 67_108_864), .init("maxReportsPage", 100), .init("maxSubscriptionsPerConnection", 16),
    ]

    static let speciesInPolish: [FlowView.Option] = [
        .init(id: "dog", name: "Pies"), .init(id: "cat", name: "Kot"), .init(id: "rabbit", name: "Królik"),
        .init(id: "ferret", name: "Fretka"), .init(id: "guinea-pig", name: "Świnka morska"), .init(id: "hamster", name: "Chomik"),
        .init(id: "rat", name: "Szczur"), .init(id: "bird", name: "Ptak"), .init(id: "tortoise", name: "Żółw"),
        .init(id: "horse", name: "Koń"), .init(id: "other", name: "Inny"),
    ]

    /// rpc.discover's: the document cut to daemon.info and the errors it refers to (a whole
    /// document cannot hold its own example).
    static var document: JSONValue {
        let info = DaemonInfo.contract
        return ProtocolContract.document(version: petspotdVersion, methods: [info], notifications: [], schemas: [], errors: info.errorKinds)
    }
}
