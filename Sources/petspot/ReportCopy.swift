import PetSpotViews

/// The few words `petspot report` says itself, around the daemon's screens: prompts, command
/// help and how the session ended. Everything about the report comes from the daemon, in the
/// flow's locale; these follow the same locale so a screen never mixes languages.
struct ReportCopy: Sendable {
    var commands: [(command: String, meaning: String)]
    var commandsTitle: String
    var footer: String
    var photoPrompt: String
    var continuePrompt: String
    var continueHint: String
    var summaryPrompt: String
    var alertPrompt: @Sendable (_ count: Int) -> String
    var unavailable: String
    var requestingLocation: String
    var settings: @Sendable (_ file: String, _ key: String) -> String
    var submitted: @Sendable (_ reportID: String) -> String
    var showIt: @Sendable (_ reportID: String) -> String
    var cancelled: String
    var changedElsewhere: String
    var submittedElsewhere: @Sendable (_ reportID: String?) -> String
    var cancelledElsewhere: String
    var expired: String
    var photoUnreadable: @Sendable (_ path: String, _ reason: String) -> String
    var photoTooLarge: @Sendable (_ path: String, _ size: String, _ limit: String) -> String
    var photoUsage: String
    var unknownCommand: @Sendable (_ name: String) -> String
    var notHere: @Sendable (_ command: String) -> String
    var interrupted: String
    var inputEnded: String
    var lost: @Sendable (_ reason: String) -> String
    var flowGone: @Sendable (_ message: String) -> String

    static func forLocale(_ locale: FlowLocale) -> ReportCopy {
        switch locale {
        case .en: .english
        case .pl: .polish
        }
    }

    static let english = ReportCopy(
        commands: [
            ("Enter", "keep the value shown in [brackets]; after the last field, continue"),
            ("-", "clear the field"),
            (":back", "go back one step (on the first step: cancel the report)"),
            (":continue", "check this step and go on"),
            (":edit", "go through this step's fields again"),
            (":gps", "fill in the position from the GPS (step 3)"),
            (":photo PATH", "attach the image in this file (step 2)"),
            (":submit", "send the report (on the summary)"),
            (":cancel", "cancel the report; nothing is stored"),
            (":help", "this list"),
            ("::text", "a value that starts with a colon"),
        ],
        commandsTitle: "Commands",
        footer: "Enter keeps · - clears · :help",
        photoPrompt: "path to an image file",
        continuePrompt: "Press Enter to continue",
        continueHint: "Press Enter to continue, or type a command (:help lists them).",
        summaryPrompt: "Type :submit to send the report, or :back to change something",
        alertPrompt: { "Choose 1–\($0)" },
        unavailable: "unavailable",
        requestingLocation: "Requesting the GPS position…",
        settings: { file, key in "Location access is set by \"\(key)\" in \(file); ask whoever runs petspotd to change it." },
        submitted: { "Report submitted: \($0)" },
        showIt: { "Show it with: petspot reports show \($0)" },
        cancelled: "Report cancelled; nothing was stored.",
        changedElsewhere: "This report was changed elsewhere.",
        submittedElsewhere: { id in id.map { "This report was submitted elsewhere: \($0)" } ?? "This report was submitted elsewhere." },
        cancelledElsewhere: "This report was cancelled elsewhere; nothing was stored.",
        expired: "This report expired: it was left unfinished too long, and nothing was stored.",
        photoUnreadable: { path, reason in "Cannot read \(path): \(reason)" },
        photoTooLarge: { path, size, limit in "\(path) is \(size), more than petspotd takes in one request (\(limit))." },
        photoUsage: "Write the file's path after :photo, e.g. :photo ~/rex.jpg",
        unknownCommand: { "\($0) is not a command; :help lists them." },
        notHere: { "\($0) is not available on this screen." },
        interrupted: "interrupted: the report was cancelled and nothing was stored",
        inputEnded: "the input ended before the report was submitted; the report was cancelled",
        lost: { "lost the connection to petspotd (\($0)); the report was not submitted" },
        flowGone: { "the report can no longer be completed: \($0)" })

    static let polish = ReportCopy(
        commands: [
            ("Enter", "zostaw wartość podaną w [nawiasach]; po ostatnim polu przejdź dalej"),
            ("-", "wyczyść pole"),
            (":back", "wróć o krok (na pierwszym kroku: anuluj zgłoszenie)"),
            (":continue", "sprawdź ten krok i przejdź dalej"),
            (":edit", "przejdź jeszcze raz przez pola tego kroku"),
            (":gps", "uzupełnij położenie z GPS (krok 3)"),
            (":photo ŚCIEŻKA", "dołącz zdjęcie z tego pliku (krok 2)"),
            (":submit", "wyślij zgłoszenie (w podsumowaniu)"),
            (":cancel", "anuluj zgłoszenie; nic nie zostanie zapisane"),
            (":help", "ta lista"),
            ("::tekst", "wartość zaczynająca się od dwukropka"),
        ],
        commandsTitle: "Polecenia",
        footer: "Enter zostawia · - czyści · :help",
        photoPrompt: "ścieżka do pliku ze zdjęciem",
        continuePrompt: "Naciśnij Enter, aby przejść dalej",
        continueHint: "Naciśnij Enter, aby przejść dalej, albo wpisz polecenie (:help je wyświetla).",
        summaryPrompt: "Wpisz :submit, aby wysłać zgłoszenie, albo :back, aby coś zmienić",
        alertPrompt: { "Wybierz 1–\($0)" },
        unavailable: "niedostępne",
        requestingLocation: "Pobieranie położenia z GPS…",
        settings: { file, key in "O dostępie do położenia decyduje ustawienie „\(key)” w \(file); o zmianę poproś administratora petspotd." },
        submitted: { "Zgłoszenie wysłane: \($0)" },
        showIt: { "Podgląd: petspot reports show \($0)" },
        cancelled: "Zgłoszenie anulowane; nic nie zostało zapisane.",
        changedElsewhere: "To zgłoszenie zostało zmienione w innym miejscu.",
        submittedElsewhere: { id in id.map { "To zgłoszenie zostało wysłane w innym miejscu: \($0)" } ?? "To zgłoszenie zostało wysłane w innym miejscu." },
        cancelledElsewhere: "To zgłoszenie zostało anulowane w innym miejscu; nic nie zostało zapisane.",
        expired: "To zgłoszenie wygasło: zbyt długo pozostawało niedokończone, nic nie zostało zapisane.",
        photoUnreadable: { path, reason in "Nie można odczytać \(path): \(reason)" },
        photoTooLarge: { path, size, limit in "\(path) ma \(size), więcej niż petspotd przyjmuje w jednym żądaniu (\(limit))." },
        photoUsage: "Po :photo podaj ścieżkę pliku, np. :photo ~/reksio.jpg",
        unknownCommand: { "\($0) nie jest poleceniem; :help wyświetla listę." },
        notHere: { "\($0) nie jest dostępne na tym ekranie." },
        interrupted: "przerwano: zgłoszenie anulowano, nic nie zostało zapisane",
        inputEnded: "wejście skończyło się przed wysłaniem zgłoszenia; zgłoszenie anulowano",
        lost: { "utracono połączenie z petspotd (\($0)); zgłoszenie nie zostało wysłane" },
        flowGone: { "zgłoszenia nie da się już dokończyć: \($0)" })
}
