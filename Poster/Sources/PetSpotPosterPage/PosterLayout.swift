import CCairo
import PetSpotPoster

/// Where everything of one poster goes on its page, top to bottom: the headline in a red band,
/// the species, the photo as large as the rest leaves room for, the facts and the description
/// beside the QR code, the contact in a frame, the reference. Texts are measured first; when
/// they would leave the photo less than `minPhotoShare` of the page, all of them are made
/// smaller, step by step, down to `minTextScale`: a 500-character description still fits on
/// the one page.
struct PosterLayout {
    /// The printers' margin on every side: half an inch, outside what most printers cannot reach.
    static let margin = 36.0
    static let gap = 10.0
    static let minPhotoShare = 0.3
    static let minTextScale = 0.5

    struct Placed {
        let block: TextBlock
        let x: Double
        let y: Double
        let color: Color
    }

    let page: Rect
    let band: Rect
    let photoBox: Rect
    let contactFrame: Rect
    let qrBox: Rect?
    let texts: [Placed]
    /// The text size factor the page needed (1 when nothing had to shrink).
    let textScale: Double

    init(_ content: PosterContent, paper: PaperSize, in context: PageTextContext) {
        let (pageWidth, pageHeight) = paper.points
        page = Rect(x: 0, y: 0, width: pageWidth, height: pageHeight)
        let inner = Rect(x: Self.margin, y: Self.margin, width: pageWidth - 2 * Self.margin, height: pageHeight - 2 * Self.margin)

        var scale = 1.0
        var attempt = Self.arrange(content, inner: inner, scale: scale, in: context)
        while attempt.photoHeight < inner.height * Self.minPhotoShare, scale > Self.minTextScale + 0.001 {
            scale = max(Self.minTextScale, scale - 0.05)
            attempt = Self.arrange(content, inner: inner, scale: scale, in: context)
        }
        band = attempt.band
        photoBox = attempt.photoBox
        contactFrame = attempt.contactFrame
        qrBox = attempt.qrBox
        texts = attempt.texts
        textScale = scale
    }

    private struct Arrangement {
        var band = Rect(x: 0, y: 0, width: 0, height: 0)
        var photoBox = Rect(x: 0, y: 0, width: 0, height: 0)
        var contactFrame = Rect(x: 0, y: 0, width: 0, height: 0)
        var qrBox: Rect? = nil
        var texts: [Placed] = []
        var photoHeight = 0.0
    }

    private static func arrange(_ content: PosterContent, inner: Rect, scale: Double, in context: PageTextContext) -> Arrangement {
        var result = Arrangement()
        let gap = Self.gap

        // The headline and the species fill the width on one line, up to a size.
        let bandPadding = 6.0
        let headlineSize = TextBlock.sizeFilling(content.headline, width: inner.width - 4 * bandPadding, font: .bold(84), in: context)
        let headline = TextBlock(content.headline, font: .bold(headlineSize), width: inner.width - 2 * bandPadding, alignment: .center, in: context)
        result.band = Rect(x: inner.x, y: inner.y, width: inner.width, height: headline.size.height + 2 * bandPadding)
        result.texts.append(Placed(block: headline, x: inner.x + bandPadding, y: inner.y + bandPadding, color: .white))
        var y = result.band.maxY + gap

        let speciesSize = max(18, TextBlock.sizeFilling(content.species, width: inner.width * 0.98, font: .bold(52), in: context))
        let species = TextBlock(content.species, font: .bold(speciesSize), width: inner.width, alignment: .center, in: context)
        result.texts.append(Placed(block: species, x: inner.x, y: y, color: .black))
        y += species.size.height + gap
        let photoTop = y

        // From the bottom up: the reference, the contact, the facts and description.
        let reference = TextBlock(content.reference, font: .regular(7), width: inner.width, alignment: .right, in: context)
        let referenceY = inner.maxY - reference.size.height
        result.texts.append(Placed(block: reference, x: inner.x, y: referenceY, color: .muted))

        let framePadding = 10.0 * scale
        let contactWidth = inner.width - 2 * framePadding
        var contactBlocks = [TextBlock(content.contactPrompt, font: .regular(15 * scale), width: contactWidth, in: context)]
        for line in content.contacts {
            let markup = "<span size='60%' weight='normal'>\(Markup.escape(line.label))</span>\n\(Markup.escape(line.value))"
            contactBlocks.append(TextBlock(markup, markup: true, font: .bold(26 * scale), width: contactWidth, in: context))
        }
        let contactSpacing = 6.0 * scale
        let contactHeight = contactBlocks.map(\.size.height).reduce(0, +) + contactSpacing * Double(contactBlocks.count - 1) + 2 * framePadding
        result.contactFrame = Rect(x: inner.x, y: referenceY - 4 - contactHeight, width: inner.width, height: contactHeight)
        var contactY = result.contactFrame.y + framePadding
        for block in contactBlocks {
            result.texts.append(Placed(block: block, x: inner.x + framePadding, y: contactY, color: .black))
            contactY += block.size.height + contactSpacing
        }

        // The facts column, and beside it the QR code with its URI and what scanning it gives.
        let qrSide = content.qrCode == nil ? 0 : max(100, 150 * scale)
        let qrColumn = content.qrCode == nil ? 0 : qrSide + gap
        let factsWidth = inner.width - qrColumn
        var left: [TextBlock] = content.facts.map { line in
            TextBlock("<b>\(Markup.escape(line.label)):</b> \(Markup.escape(line.value))", markup: true, font: .regular(14 * scale), width: factsWidth, in: context)
        }
        if let description = content.description {
            let markup = "<b>\(Markup.escape(content.descriptionTitle)):</b> \(Markup.escape(description))"
            left.append(TextBlock(markup, markup: true, font: .regular(12.5 * scale), width: factsWidth, in: context))
        }
        let factSpacing = 4.0 * scale
        let leftHeight = left.map(\.size.height).reduce(0, +) + factSpacing * Double(max(left.count - 1, 0))
        var right: [TextBlock] = []
        if let code = content.qrCode {
            right.append(TextBlock(code.payload.uri, font: .regular(8), width: qrSide, alignment: .center, in: context))
            right.append(TextBlock(code.caption, font: .regular(max(7, 9 * scale)), width: qrSide, alignment: .center, in: context))
        }
        let rightHeight = content.qrCode == nil ? 0 : qrSide + right.map(\.size.height).reduce(0, +) + 2
        let detailsHeight = max(leftHeight, rightHeight)
        let detailsY = result.contactFrame.y - gap - detailsHeight

        var factY = detailsY
        for block in left {
            result.texts.append(Placed(block: block, x: inner.x, y: factY, color: .black))
            factY += block.size.height + factSpacing
        }
        if content.qrCode != nil {
            let qrX = inner.maxX - qrSide
            result.qrBox = Rect(x: qrX, y: detailsY, width: qrSide, height: qrSide)
            var textY = detailsY + qrSide
            for block in right {
                result.texts.append(Placed(block: block, x: qrX, y: textY, color: .black))
                textY += block.size.height + 2
            }
        }

        result.photoHeight = detailsY - gap - photoTop
        result.photoBox = Rect(x: inner.x, y: photoTop, width: inner.width, height: max(0, result.photoHeight))
        return result
    }
}
