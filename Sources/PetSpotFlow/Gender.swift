/// The animal's sex, as the two choices the screen offers.
public enum Gender: String, Sendable, CaseIterable {
    case female, male
}
