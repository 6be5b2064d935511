import PetSpotProtocol
import PetSpotViews
import Testing

@Suite("Sizes as a person reads them")
struct ByteSizeTests {
    @Test("at the edges of each unit", arguments: [
        (0, "0 B"),
        (1, "1 B"),
        (1023, "1023 B"),
        (1024, "1 KiB"),
        (1075, "1 KiB"),
        (1076, "1.1 KiB"),
        (1536, "1.5 KiB"),
        (12_595, "12.3 KiB"),
        // The last size that rounds below 1024 KiB, and the first that rounds up to it.
        (1_048_524, "1023.9 KiB"),
        (1_048_525, "1 MiB"),
        (1_048_575, "1 MiB"),
        (1_048_576, "1 MiB"),
        (10 * 1024 * 1024, "10 MiB"),
        (1_073_689_395, "1023.9 MiB"),
        (1_073_689_396, "1 GiB"),
        (1_073_741_823, "1 GiB"),
        (1 << 40, "1 TiB"),
        // There is no unit above TiB.
        (1 << 50, "1024 TiB"),
        (Int.max, "8388608 TiB"),
        (-5, "-5 B"),
    ])
    func edges(bytes: Int, text: String) {
        #expect(ByteSize.text(bytes) == text)
    }

    @Test("the decimal separator is the locale's")
    func separator() {
        #expect(ByteSize.text(12_595, decimalSeparator: ",") == "12,3 KiB")
        #expect(ByteSize.text(10 * 1024 * 1024, decimalSeparator: ",") == "10 MiB")
    }
}

