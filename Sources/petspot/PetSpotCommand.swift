import ArgumentParser
import PetSpotProtocol

@main
struct PetSpotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspot",
        abstract: "Report a missing pet to petspotd, and look after your reports.",
        discussion: """
            petspot talks to petspotd, the missing-pet report daemon, over its Unix socket. \
            Start with `petspot report`: it walks you through the report step by step, \
            exactly as the daemon describes each screen.

            Examples:
              petspot report                      file a report (in English)
              petspot report --locale pl          the same in Polish
              petspot reports list                your reports, newest first, where each stands
              petspot reports show ID             one report: status, chip, contacts, map links, photo
              petspot reports export --format csv > reports.csv
              petspot reports found ID            the pet is home (withdraw ID: stop the search)
              petspot reports renew ID            still missing: expires later
              petspot reports amend ID --phone '+48 601 234 999'
              petspot reports erase ID            its personal data gone for good (asks first)
              petspot poster ID                   a poster of your report to print (petspot-poster)
              petspot animals                     the missing animals, nearest first (masked for the public)
              petspot animals lookup CHIP         the missing animals with a microchip number
              petspot location --watch            follow the current position
              petspot status                      is the daemon there, and what can it do

            The socket is --socket, else $PETSPOT_SOCKET, else /run/petspotd/petspotd.sock (never \
            one in the working directory). A call that takes longer than --timeout (120 s) or an \
            answer line longer than --max-answer-bytes (64 MiB) ends the command with exit code 69. \
            Exit codes: 0 done, 1 refused or not submitted, 64 bad usage (also reports erase \
            without --yes when stdin is not a terminal), 69 the daemon cannot be reached or did \
            not answer, 130 interrupted with Ctrl-C.

            Shell completion: petspot --generate-completion-script bash > /etc/bash_completion.d/petspot \
            (also zsh and fish).
            """,
        version: petspotdVersion,
        subcommands: [
            ReportCommand.self, ReportsCommand.self, AnimalsCommand.self, PosterCommand.self, LocationCommand.self, StatusCommand.self,
            CallCommand.self,
        ])
}
