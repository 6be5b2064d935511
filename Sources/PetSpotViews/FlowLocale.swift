/// The language of a flow's screens, chosen when the flow starts and fixed for its life.
public enum FlowLocale: String, Sendable, CaseIterable {
    case en, pl
}
