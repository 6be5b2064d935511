import PetSpotJSON

/// Another box's report, brought down from the central database by the relay, read by this
/// box's flow rules before the animal list shows it. Every box's relay writes through one
/// central role, so a compromised box could write anything there: what a kiosk shows must be
/// what its own flow would have stored. Each member is read as `flow.update` reads it
/// (`FieldEdit`) and normalised or refused as the flow does (`FieldNormalizer`), the photo
/// decoded and checked as an upload is, then every step is checked as Continue checks it
/// (`StepValidator`). The result is what the box keeps: the values as its flow writes them.
public enum FleetReportRules {
    /// `values` (a report's `values` as the central database holds them; its `photo` member,
    /// which describes the photo, is replaced by `photoBase64`'s bytes, whose description is
    /// made here) read by the flow's rules. A refusal is `invalidParams` naming the field.
    public static func values(_ values: JSONObject, photoBase64: String?, env: FlowEnvironment,
                              strings: StringCatalog = .english) throws(FlowError) -> FlowValues
    {
        var sent = JSONObject()
        for (key, value) in values where key != FlowField.photo.rawValue { sent[key] = value }
        sent[FlowField.photo.rawValue] = photoBase64.map { ["data": .string($0)] } ?? .null
        let prepared = PreparedUpdate(sent, env: env)
        var kept = FlowValues()
        for sent in try FieldEdit.decode(prepared.values) {
            if let issue = FieldNormalizer.apply(sent.edit, to: &kept, env: env, decodedPhoto: prepared.photo) {
                throw ReportAmendment.refusal(sent.edit.field, issue, strings)
            }
        }
        for step in StepID.allCases {
            let issues = StepValidator.issues(on: step, in: kept, env: env)
            if let field = FlowField.allCases.first(where: { issues[$0] != nil }), let issue = issues[field] {
                throw ReportAmendment.refusal(field, issue, strings)
            }
        }
        return kept
    }
}
