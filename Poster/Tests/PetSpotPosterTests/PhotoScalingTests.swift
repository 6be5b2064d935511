import Testing

@testable import PetSpotPoster

@Suite("how large a photo is decoded")
struct PhotoScalingTests {
    @Test("the pixel bound, at its edge and past Int")
    func bound() {
        #expect(PhotoScaling.fits(width: 8192, height: 8192, maxPixels: PhotoScaling.defaultMaxPixels))
        #expect(!PhotoScaling.fits(width: 8192, height: 8193, maxPixels: PhotoScaling.defaultMaxPixels))
        #expect(PhotoScaling.fits(width: 100, height: 100, maxPixels: 10_000))
        #expect(!PhotoScaling.fits(width: 100, height: 101, maxPixels: 10_000))
        #expect(!PhotoScaling.fits(width: Int.max, height: 2, maxPixels: Int.max))
        #expect(!PhotoScaling.fits(width: 20000, height: 20000, maxPixels: PhotoScaling.defaultMaxPixels))
    }

    @Test(
        "scaled down (to within a pixel) so that it covers the box upright or turned a quarter, never up",
        arguments: [
            (4000, 3000, 1400.0, 1000.0, 1334, 1000),  // landscape in a landscape box: the height binds
            (3000, 4000, 1400.0, 1000.0, 1000, 1334),  // portrait: turned, it would be the landscape above
            (800, 600, 1400.0, 1000.0, 800, 600),  // smaller than the box: as it is
            (12000, 1000, 1400.0, 1000.0, 1400, 117),  // a panorama: the width binds
        ])
    func decodeSize(width: Int, height: Int, boxWidth: Double, boxHeight: Double, expectedWidth: Int, expectedHeight: Int) {
        let size = PhotoScaling.decodeSize(width: width, height: height, box: (boxWidth, boxHeight))
        #expect(abs(size.width - expectedWidth) <= 1 && abs(size.height - expectedHeight) <= 1, "\(size)")
    }
}
