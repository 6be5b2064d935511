#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotSystem

/// What the program can do with the terminal it runs in, decided once at start.
struct Terminal {
    /// stdin is a person at a keyboard (not a pipe or a file).
    let inputIsTerminal: Bool
    /// stdout is a terminal, so cursor movement and colour reach a screen.
    let outputIsTerminal: Bool
    let environment: [String: String]

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        inputIsTerminal = isatty(STDIN_FILENO) == 1
        outputIsTerminal = isatty(STDOUT_FILENO) == 1
        self.environment = environment
    }

    /// TERM=dumb (or no TERM) promises neither colour nor cursor movement.
    private var isDumb: Bool {
        let term = environment["TERM"] ?? ""
        return term.isEmpty || term == "dumb"
    }

    /// Colour and bold, unless NO_COLOR is set (https://no-color.org) or the terminal is dumb.
    var usesColour: Bool {
        outputIsTerminal && !isDumb && (environment["NO_COLOR"] ?? "").isEmpty
    }

    /// Redrawing whole screens needs a person on both ends and a terminal that can clear.
    var redrawsScreens: Bool {
        inputIsTerminal && outputIsTerminal && !isDumb
    }

    /// Columns of the terminal: the window size, else $COLUMNS, else 80.
    var width: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    static let clearScreen = "\u{1B}[H\u{1B}[2J"
}

/// Runs a handler on a thread of its own when one of the given signals arrives, instead of the
/// default of dying on the spot: Ctrl-C must still cancel the flow on the daemon, even while
/// the main thread is blocked reading a line or waiting for an answer. The signal handler only
/// writes the signal's number into a pipe (all a handler may safely do); the thread does the rest.
enum SignalWatcher {
    /// Where the handler writes; set once, before any handler is installed.
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Call once per program.
    static func watch(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        // A parent may have left them blocked (a test runner's thread blocks every signal);
        // unblocked here, before the thread starts, so that the thread inherits that too.
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals { sigaddset(&mask, number) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        writeEnd = ends[1]
        let readEnd = ends[0]
        DetachedThread.start(named: "petspot-signals") {
            var number: UInt8 = 0
            while true {
                let n = read(readEnd, &number, 1)
                if n == 1 {
                    handler(Int32(number))
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalWatcher.writeEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            // Interrupted reads carry on; the handler thread ends the program.
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
    }
}
