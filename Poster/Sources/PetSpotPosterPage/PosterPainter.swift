import CCairo
import PetSpotPoster

/// Draws a laid-out poster with cairo.
enum PosterPainter {
    static func draw(_ layout: PosterLayout, content: PosterContent, photo: PagePhoto, qrCode: QRCodeMatrix?, on cairo: OpaquePointer, in context: PageTextContext) {
        fill(layout.page, .white, on: cairo)
        fill(layout.band, .alarm, on: cairo)
        drawPhoto(photo, in: layout.photoBox, content: content, on: cairo, context: context)
        if let qrCode, let box = layout.qrBox { drawQRCode(qrCode, in: box, on: cairo) }

        cairo_save(cairo)
        cairo_set_source_rgb(cairo, Color.black.red, Color.black.green, Color.black.blue)
        cairo_set_line_width(cairo, 2)
        let frame = layout.contactFrame
        cairo_rectangle(cairo, frame.x + 1, frame.y + 1, frame.width - 2, frame.height - 2)
        cairo_stroke(cairo)
        cairo_restore(cairo)

        for text in layout.texts {
            text.block.draw(on: cairo, x: text.x, y: text.y, color: text.color)
        }
    }

    private static func fill(_ rect: Rect, _ color: Color, on cairo: OpaquePointer) {
        cairo_save(cairo)
        cairo_set_source_rgb(cairo, color.red, color.green, color.blue)
        cairo_rectangle(cairo, rect.x, rect.y, rect.width, rect.height)
        cairo_fill(cairo)
        cairo_restore(cairo)
    }

    /// The photo as large as the box allows, aspect kept, centred; or a grey box saying why
    /// there is none.
    private static func drawPhoto(_ photo: PagePhoto, in box: Rect, content: PosterContent, on cairo: OpaquePointer, context: PageTextContext) {
        guard box.height >= 1 else { return }
        switch photo {
        case .image(let image):
            let factor = min(box.width / Double(image.width), box.height / Double(image.height))
            let width = Double(image.width) * factor, height = Double(image.height) * factor
            cairo_save(cairo)
            cairo_translate(cairo, box.x + (box.width - width) / 2, box.y + (box.height - height) / 2)
            cairo_scale(cairo, factor, factor)
            cairo_set_source_surface(cairo, image.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cairo), CAIRO_FILTER_GOOD)
            cairo_rectangle(cairo, 0, 0, Double(image.width), Double(image.height))
            cairo_fill(cairo)
            cairo_restore(cairo)
        case .none, .notShown:
            fill(box, .placeholder, on: cairo)
            cairo_save(cairo)
            cairo_set_source_rgb(cairo, Color.rule.red, Color.rule.green, Color.rule.blue)
            cairo_set_line_width(cairo, 1.5)
            var dashes = [6.0, 4.0]
            cairo_set_dash(cairo, &dashes, 2, 0)
            cairo_rectangle(cairo, box.x + 0.75, box.y + 0.75, box.width - 1.5, box.height - 1.5)
            cairo_stroke(cairo)
            cairo_restore(cairo)
            let said = photo.isNotShown ? content.photoNotShown ?? content.noPhoto : content.noPhoto
            let size = photo.isNotShown ? 16.0 : 28.0
            let text = TextBlock(said, font: .bold(size), width: box.width * 0.8, alignment: .center, in: context)
            let height = text.size.height
            guard height <= box.height else { return }
            text.draw(on: cairo, x: box.x + box.width * 0.1, y: box.y + (box.height - height) / 2, color: .muted)
        }
    }

    /// Dark modules as one filled path on a white square that includes the quiet zone, so that
    /// neighbouring modules leave no seams between them.
    private static func drawQRCode(_ code: QRCodeMatrix, in box: Rect, on cairo: OpaquePointer) {
        fill(box, .white, on: cairo)
        let modules = Double(code.size + 2 * QRCodeMatrix.quietZone)
        let module = box.width / modules
        let origin = (x: box.x + module * Double(QRCodeMatrix.quietZone), y: box.y + module * Double(QRCodeMatrix.quietZone))
        cairo_save(cairo)
        cairo_set_source_rgb(cairo, 0, 0, 0)
        cairo_set_antialias(cairo, CAIRO_ANTIALIAS_NONE)
        for row in 0..<code.size {
            var column = 0
            while column < code.size {
                guard code.isDark(row: row, column: column) else {
                    column += 1
                    continue
                }
                // A run of dark modules in a row is one rectangle.
                let start = column
                while column < code.size, code.isDark(row: row, column: column) { column += 1 }
                cairo_rectangle(cairo, origin.x + Double(start) * module, origin.y + Double(row) * module, Double(column - start) * module, module)
            }
        }
        cairo_fill(cairo)
        cairo_restore(cairo)
    }
}

extension PagePhoto {
    var isNotShown: Bool {
        if case .notShown = self { return true }
        return false
    }
}
