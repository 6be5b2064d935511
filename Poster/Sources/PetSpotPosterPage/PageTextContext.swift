import CCairo
import CPangoCairo

/// Pango's context for one page: text is measured and drawn with the same metrics on a PDF and
/// on a PNG (no hinting of glyph advances to the PNG's pixels), so both hold the same layout.
final class PageTextContext {
    let pango: OpaquePointer

    init(cairo: OpaquePointer) {
        pango = pango_cairo_create_context(cairo)
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        pango_cairo_context_set_font_options(pango, options)
        cairo_font_options_destroy(options)
        pango_cairo_context_set_resolution(pango, 72)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(pango))
    }
}
