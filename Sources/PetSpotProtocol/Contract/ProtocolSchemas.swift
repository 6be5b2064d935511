import PetSpotJSON
import PetSpotViews

/// The shapes several methods share, kept once under `components/schemas` of the OpenRPC
/// document and referred to by name.
public enum ProtocolSchemas {
    static let nullableString = JSONSchema.nullable(.string())

    public static let all: KeyValuePairs<String, JSONSchema> = [
        "Flow": .either([.ref("ActiveFlow"), .ref("CompletedFlow"), .ref("CancelledFlow"), .ref("ExpiredFlow")],
                        "A flow: on a step, or ended; an ended flow says only how it ended (expired: only in flow.changed)"),
        "ActiveFlow": .object([
            "id": .string(),
            "state": .constant("active"),
            "step": .oneOf(["chip", "photo", "description", "contact", "summary"]),
            "locale": .oneOf(FlowLocale.allCases.map(\.rawValue)),
            "screen": .ref("Screen"),
            "values": .ref("FlowValues"),
        ], "Everything a client needs to draw the current screen"),
        "CompletedFlow": .object(["id": .string(), "state": .constant("completed"), "reportId": nullableString],
                                 "A submitted flow and the report it became"),
        "CancelledFlow": .object(["id": .string(), "state": .constant("cancelled")]),
        "ExpiredFlow": .object(["id": .string(), "state": .constant("expired")], "Idle past limits.flowIdleTimeoutSeconds and gone"),
        "Screen": .object([
            "title": .string(),
            "progress": .nullable(.object(["current": .integer(1...4), "total": .integer(4...4), "label": .string()])),
            "heading": .string(),
            "text": .string(),
            "fields": .array(.ref("Field")),
            "actions": .array(.oneOf(["continue", "back", "requestLocation", "submit"])),
            "toast": nullableString,
            "alert": .nullable(.ref("Alert")),
        ]),
        "Field": .object([
            "name": .oneOf(fieldNames),
            "label": .string(),
            "placeholder": nullableString,
            "value": .either([.null, .string(), .number(), .ref("PhotoInfo")],
                             "The stored value, normalised; null when empty"),
            "display": .nullable(.string("As a person should see it; a refused value as it was sent")),
            "required": .boolean,
            "enabled": .boolean,
            "error": nullableString,
            "helper": nullableString,
            "counter": nullableString,
            "options": .array(.ref("Option")),
        ], optional: ["options"]),
        "Option": .object(["id": .string(), "name": .string()]),
        "Alert": .object(["title": .string(), "message": .string(), "actions": .array(.ref("AlertAction"))]),
        "AlertAction": .object(["id": .oneOf(["cancel", "openSettings"]), "label": .string(), "settings": .ref("SettingsLocation")],
                               optional: ["settings"]),
        "SettingsLocation": .object(["file": .string(), "key": .string()], "Where in the daemon's configuration to change a setting"),
        "FlowValues": .object(valueMembers, "Every field's stored value; null when empty"),
        "PhotoInfo": .object(["mediaType": .string(), "bytes": .integer(0...Int(Int32.max)), "sha256": .string()],
                             "A photo by its type, size and SHA-256; never its data"),
        "Report": .object([
            "id": .string(),
            "flowId": .string(),
            "submittedAt": .string("ISO 8601 UTC"),
            "status": .oneOf(ReportView.Status.allCases.map(\.rawValue)),
            "version": .integer(1...Int.max, "1 at submit, +1 at every change"),
            "updatedAt": .string("When it last changed, ISO 8601 UTC"),
            "expiresAt": .nullable(.string("When a missing report becomes expired unless renewed, ISO 8601 UTC; null in any other status")),
            "erased": .boolean,
            "values": .ref("FlowValues"),
            "delivery": .ref("Delivery"),
        ]),
        "Animal": .object([
            "id": .string(),
            "box": .string("The box it was filed at (box.name)"),
            "status": .oneOf(["missing", "found", "withdrawn", "expired"], "missing on the list; another only in an animals.changed that removes it"),
            "chipNumber": .nullable(.string("Digits; null for the public")),
            "species": .nullable(.string("An id of species.list")),
            "race": nullableString,
            "gender": .nullable(.oneOf(["female", "male"])),
            "age": .nullable(.integer(0...40)),
            "disappearanceDate": .nullable(.string("YYYY-MM-DD")),
            "lastSeen": .nullable(.object(["latitude": .number(-90...90), "longitude": .number(-180...180)],
                                          "5 decimals for staff, 3 for the public")),
            "distanceKm": .nullable(.number(0...20_038, "From the list's origin; null without one or without a position")),
            "description": nullableString,
            "photo": .nullable(.ref("PhotoInfo")),
            "contact": .object(["phone": nullableString, "email": nullableString], "Whole for staff, masked for the public"),
            "submittedAt": .string("ISO 8601 UTC"),
            "updatedAt": .string("ISO 8601 UTC"),
            "version": .integer(1...Int.max),
        ], "A missing animal as the caller may see it"),
        "Delivery": .either([
            .object(["state": .constant("pending")]),
            .object(["state": .constant("delivered"), "deliveredAt": .string("ISO 8601 UTC")]),
        ], "Whether a relay has taken the report to the central database"),
        "Location": .object([
            "status": .oneOf(LocationView.Status.allCases.map(\.rawValue)),
            "fix": .ref("LocationFix"),
            "message": .string(),
            "settings": .ref("SettingsLocation"),
        ], optional: ["fix", "settings"], "fix with status ok; settings with permissionDenied and servicesDisabled"),
        "LocationFix": .object([
            "latitude": .number(-90...90, "5 decimals"),
            "longitude": .number(-180...180, "5 decimals"),
            "source": .string("The provider that made it"),
            "time": .string("The fix time, ISO 8601 UTC"),
            "accuracy": .number(nil, "Horizontal error in metres"),
        ], optional: ["accuracy"]),
    ]

    static let fieldNames = ["chipNumber", "photo", "disappearanceDate", "species", "race", "gender", "age", "latitude",
                             "longitude", "additionalDescription", "contactPhone", "contactEmail"]

    static let valueMembers: KeyValuePairs<String, JSONSchema> = [
        "chipNumber": .nullable(.string("Digits only")),
        "photo": .nullable(.ref("PhotoInfo")),
        "disappearanceDate": .nullable(.string("YYYY-MM-DD")),
        "species": .nullable(.string("An id of species.list")),
        "race": nullableString,
        "gender": .nullable(.oneOf(["female", "male"])),
        "age": .nullable(.integer(0...40)),
        "latitude": .nullable(.number(-90...90)),
        "longitude": .nullable(.number(-180...180)),
        "additionalDescription": nullableString,
        "contactPhone": nullableString,
        "contactEmail": nullableString,
    ]
}
