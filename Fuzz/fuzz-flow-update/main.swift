import FuzzSupport
import PetSpotFlow
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

// Input: a first line naming the step and, after a space, the locale ("description pl"); any
// other first line picks both from its bytes. The rest is what `flow.update` sends on that step
// of a flow walked there with valid values: a JSON object is the `values` (of a whole request:
// its params.values); any other JSON value, or text that is not JSON, is the value of every field
// of the step (the photo's data and filename).
// Must hold: an update the flow refuses changes nothing; after one it takes, the view renders as
// one answer line, every field it refused is empty and shows what was sent, every stored
// value keeps its field's rule, and Continue either moves on (and Back returns) or stays with
// a toast and an error.

enum World {
    static let env = FlowEnvironment(
        today: CalendarDate(year: 2024, month: 6, day: 15)!, species: .builtIn, maxPhotoBytes: 64 * 1024)

    static let validValues: [StepID: JSONObject] = [
        .description: ["species": "dog", "race": "Labrador", "gender": "female"],
        .contact: ["contactEmail": "owner@example.com"],
    ]

    /// A flow on each step in each locale, walked there once; every input starts from a copy.
    static let flows: [StepID: [FlowLocale: Flow]] = Dictionary(uniqueKeysWithValues: StepID.allCases.map { step in
        (step, Dictionary(uniqueKeysWithValues: FlowLocale.allCases.map { ($0, walk(to: step, locale: $0)) }))
    })

    /// Their views, for comparing after an update the flow refused.
    static let views: [StepID: [FlowLocale: JSONValue]] = flows.mapValues { $0.mapValues { $0.view(env: env).json } }

    static func walk(to step: StepID, locale: FlowLocale) -> Flow {
        var flow = Flow(id: "fuzz", locale: locale)
        while flow.step != step {
            do {
                if let values = validValues[flow.step] { try flow.update(values, env: env) }
                guard try flow.continueStep(env: env) else { fatalError("the valid values do not leave step \(flow.step)") }
            } catch {
                fatalError("walking to step \(step) failed: \(error)")
            }
        }
        return flow
    }
}

func header(_ line: some Collection<UInt8>) -> (StepID, FlowLocale) {
    let words = String(decoding: line, as: UTF8.self).split(separator: " ").map(String.init)
    if let name = words.first, let step = StepID(rawValue: name) {
        return (step, words.count > 1 ? FlowLocale(rawValue: words[1]) ?? .en : .en)
    }
    let sum = line.reduce(0) { $0 + Int($1) }
    return (StepID.allCases[sum % StepID.allCases.count], FlowLocale.allCases[(sum / StepID.allCases.count) % FlowLocale.allCases.count])
}

func values(from body: some Collection<UInt8>, on step: StepID) -> JSONObject {
    let sent: JSONValue
    if let json = try? JSONParser.parse(body) {
        if case .object(let object) = json {
            if case .object(let values)? = object["params"]?["values"] { return values }
            return object
        }
        sent = json
    } else {
        sent = .string(String(decoding: body, as: UTF8.self))
    }
    return JSONObject(members: step.fields.map { field in
        if field == .photo, case .string = sent { return (key: field.rawValue, value: ["data": sent, "filename": sent]) }
        return (key: field.rawValue, value: sent)
    })
}

/// Written as an answer line (reading it back is fuzz-json's part).
func checkRenders(_ view: JSONValue) {
    let written = JSONWriter.bytes(view)
    invariant(!written.isEmpty && !written.contains(UInt8(ascii: "\n")), "the view is no answer line: \(JSONWriter.string(view))")
}

/// The rules of FlowValues, checked on what the flow stored.
func checkStored(_ values: FlowValues) {
    if let chip = values.chipNumber {
        invariant(!chip.isEmpty && chip.count <= 15 && chip.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }, "chip number \(chip)")
    }
    if let date = values.disappearanceDate { invariant(date <= World.env.today, "a date in the future: \(date)") }
    if let species = values.species {
        invariant(World.env.species.contains(species), "unknown species \(species)")
    } else {
        invariant(values.race == nil, "a race without a species")
    }
    if let age = values.age { invariant(Age.years.contains(age), "age \(age)") }
    if let latitude = values.latitude { invariant(CoordinateParser.isInRange(latitude, axis: .latitude), "latitude \(latitude.text)") }
    if let longitude = values.longitude { invariant(CoordinateParser.isInRange(longitude, axis: .longitude), "longitude \(longitude.text)") }
    if let phone = values.contactPhone {
        let digits = phone.hasPrefix("+") ? phone.utf8.dropFirst() : phone.utf8[...]
        invariant(!digits.isEmpty && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }, "phone \(phone)")
    }
}

fuzz { input in
    let newline = input.firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
    let (step, locale) = header(input[..<newline])
    let sent = values(from: input[min(newline + 1, input.endIndex)...], on: step)
    let env = World.env
    var flow = World.flows[step]![locale]!

    do {
        try flow.update(sent, env: env)
    } catch {
        invariant(flow.view(env: env).json == World.views[step]![locale]!, "the refused update (\(error)) changed the flow")
        return
    }

    // As the daemon writes it.
    let view = flow.view(env: env).json
    checkRenders(view)
    invariant(view["values"] == flow.values.json, "the view's values are not the flow's")
    checkStored(flow.values)
    let fields = view["screen"]?["fields"]?.arrayValue ?? []
    for field in fields {
        guard case .string(let name)? = field["name"], let known = FlowField(rawValue: name) else {
            invariant(false, "a screen field without a known name: \(JSONWriter.string(field))")
            return
        }
        invariant(field["value"] == flow.values.json(of: known), "field \(name) shows another value than stored")
        if case .string(let counter)? = field["counter"] {
            let parts = counter.split(separator: "/").compactMap { Int($0) }
            invariant(parts.count == 2 && parts[0] <= parts[1], "counter \(counter)")
        }
    }
    for (name, value) in sent {
        guard let field = fields.first(where: { $0["name"] == .string(name) }), let error = field["error"], !error.isNull else { continue }
        invariant(field["value"] == .null, "refused \(name) kept a value")
        switch value {
        case .string(let text) where name != FlowField.photo.rawValue:
            invariant(field["display"] == .string(String(text.prefix(500))), "refused \(name) does not show what was sent")
        case .number(let number):
            invariant(field["display"] == .string(String(number.literal.prefix(500))), "refused \(name) does not show the number sent")
        default:
            break
        }
    }

    do {
        guard let next = step.next else {
            try flow.checkSubmittable()
            return
        }
        if try flow.continueStep(env: env) {
            invariant(flow.step == next, "Continue from \(step) led to \(flow.step)")
            try flow.back()
            invariant(flow.step == step, "Back from \(next) led to \(flow.step)")
        } else {
            let refused = flow.view(env: env).json
            invariant(flow.step == step, "a refused Continue moved to \(flow.step)")
            invariant(refused["screen"]?["toast"]?.stringValue != nil, "a refused Continue without a toast")
            let errors = refused["screen"]?["fields"]?.arrayValue?.filter { $0["error"]?.stringValue != nil } ?? []
            invariant(!errors.isEmpty, "a refused Continue without an error under any field")
        }
    } catch {
        invariant(false, "Continue, Back or the summary failed on an active flow: \(error)")
    }
}
