import Foundation

/// The sanitizer the programs under test were built with: scripts/sanitize (make test-asan,
/// make test-tsan) sets PETSPOT_SANITIZER. A test that measures what a sanitizer itself changes
/// (memory, speed) checks that part only without one, and says why.
enum Sanitizer {
    static let active: String? = ProcessInfo.processInfo.environment["PETSPOT_SANITIZER"]
    static var isActive: Bool { active != nil }
}
