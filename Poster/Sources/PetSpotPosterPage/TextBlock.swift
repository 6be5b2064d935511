import CCairo
import CPangoCairo

/// A piece of text laid out by Pango in the poster's font: wrapped to a width (between words,
/// inside a word when one word is wider: a 254-character email address), measured, drawn.
final class TextBlock {
    enum Alignment {
        case left, center, right
    }

    private let layout: OpaquePointer

    /// `markup` is Pango markup (`Markup.escape` the text in it); otherwise `text` is plain.
    init(_ text: String, markup: Bool = false, font: FontSpec, width: Double?, alignment: Alignment = .left, in context: PageTextContext) {
        layout = pango_layout_new(context.pango)
        let description = pango_font_description_from_string(font.pangoName)
        pango_font_description_set_absolute_size(description, font.size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        if let width {
            pango_layout_set_width(layout, Int32((width * Double(PANGO_SCALE)).rounded(.down)))
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        }
        switch alignment {
        case .left: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        case .right: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        }
        if markup {
            pango_layout_set_markup(layout, text, -1)
        } else {
            pango_layout_set_text(layout, text, -1)
        }
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(layout))
    }

    /// The logical size in points: the width of the longest line, the height of all lines.
    var size: (width: Double, height: Double) {
        var width: Int32 = 0, height: Int32 = 0
        pango_layout_get_size(layout, &width, &height)
        return (Double(width) / Double(PANGO_SCALE), Double(height) / Double(PANGO_SCALE))
    }

    /// Draws the block with its top left corner (of the layout's width, when wrapped) at x, y.
    func draw(on cairo: OpaquePointer, x: Double, y: Double, color: Color) {
        cairo_save(cairo)
        cairo_set_source_rgb(cairo, color.red, color.green, color.blue)
        cairo_move_to(cairo, x, y)
        pango_cairo_show_layout(cairo, layout)
        cairo_restore(cairo)
    }

    /// The size at which `text` in `font`'s face fills `width` on one line, at most `font.size`.
    static func sizeFilling(_ text: String, width: Double, font: FontSpec, in context: PageTextContext) -> Double {
        let probe = TextBlock(text, font: FontSpec(bold: font.bold, size: 100), width: nil, in: context)
        let natural = probe.size.width
        guard natural > 0 else { return font.size }
        return min(font.size, 100 * width / natural)
    }
}

/// Pango markup's escapes, for text put between markup tags.
enum Markup {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
