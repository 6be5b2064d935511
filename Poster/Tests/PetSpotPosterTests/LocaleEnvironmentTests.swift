import PetSpotViews
import Testing

@testable import PetSpotPoster

@Suite("language and paper from the locale")
struct LocaleEnvironmentTests {
    @Test(
        "the language: LC_ALL, then LC_MESSAGES, then LANG; only en and pl",
        arguments: [
            (["LANG": "pl_PL.UTF-8"], FlowLocale.pl), (["LANG": "en_US.UTF-8"], .en), (["LANG": "pl"], .pl),
            (["LANG": "en_GB.UTF-8", "LC_MESSAGES": "pl_PL.UTF-8"], .pl), (["LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "pl_PL.UTF-8"], .en),
            (["LC_ALL": "", "LANG": "pl_PL@euro"], .pl), (["LANG": "de_DE.UTF-8"], nil), (["LANG": "C.UTF-8"], nil), ([:], nil),
            (["LC_PAPER": "pl_PL.UTF-8"], nil),
        ] as [([String: String], FlowLocale?)])
    func language(environment: [String: String], expected: FlowLocale?) {
        #expect(LocaleEnvironment.language(environment) == expected)
    }

    @Test(
        "the paper: Letter where the country uses it, A4 elsewhere; LC_ALL, then LC_PAPER, then LANG",
        arguments: [
            (["LANG": "en_US.UTF-8"], PaperSize.letter), (["LANG": "en_CA.UTF-8"], .letter), (["LANG": "fr_CA.UTF-8"], .letter),
            (["LANG": "es_MX.UTF-8"], .letter), (["LANG": "es_CL"], .letter), (["LANG": "fil_PH.UTF-8"], .letter),
            (["LANG": "pl_PL.UTF-8"], .a4), (["LANG": "en_GB.UTF-8"], .a4), (["LANG": "es_ES.UTF-8"], .a4), (["LANG": "en_AU.UTF-8"], .a4),
            (["LANG": "C"], .a4), (["LANG": "en"], .a4), ([:], .a4),
            (["LANG": "pl_PL.UTF-8", "LC_PAPER": "en_US.UTF-8"], .letter), (["LC_ALL": "pl_PL.UTF-8", "LC_PAPER": "en_US.UTF-8"], .a4),
            (["LANG": "en_US.UTF-8", "LC_MESSAGES": "pl_PL.UTF-8"], .letter),
        ] as [([String: String], PaperSize)])
    func paper(environment: [String: String], expected: PaperSize) {
        #expect(LocaleEnvironment.paper(environment) == expected)
    }

    @Test("sizes in points and CUPS media names")
    func sizes() {
        #expect(PaperSize.letter.points == (612, 792))
        #expect(abs(PaperSize.a4.points.width - 595.2756) < 0.001 && abs(PaperSize.a4.points.height - 841.8898) < 0.001)
        #expect(PaperSize.a4.cupsMedia == "A4" && PaperSize.letter.cupsMedia == "Letter")
    }
}
