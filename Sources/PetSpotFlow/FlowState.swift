/// Where a flow is in its life: only an active flow takes actions.
public enum FlowState: String, Sendable {
    case active, cancelled, completed
}
