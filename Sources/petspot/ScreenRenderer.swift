import PetSpotProtocol
import PetSpotText
import PetSpotViews

/// Turns the daemon's flow view into text: a whole redrawn screen on a terminal, or plain
/// lines a script can log. It shows what the view says and nothing else; the only words of
/// its own are the prompts and hints of `ReportCopy`. Whatever comes from the daemon (the view,
/// an error message in a notice, a report id) is drawn as `VisibleText` writes it.
struct ScreenRenderer {
    enum Layout: Equatable {
        /// Clear and redraw the whole screen before every prompt, at most `width` columns wide.
        case fullScreen(width: Int)
        /// Line by line, no escape codes: for a pipe, a log or TERM=dumb.
        case plain
    }

    let layout: Layout
    let style: TextStyle
    let copy: ReportCopy
    /// The terminal's columns now, asked before every frame so a resized window is used in full.
    let columns: (() -> Int)?

    init(layout: Layout, style: TextStyle, copy: ReportCopy, columns: (() -> Int)? = nil) {
        self.layout = layout
        // Plain lines never carry escape codes, whatever the terminal could do.
        self.style = layout == .plain ? .plain : style
        self.copy = copy
        self.columns = columns
    }

    // MARK: Frames and prompts

    /// What to write before the next prompt.
    func frame(_ view: FlowView, focus: ReportFocus, change: ScreenChange, notices: [Notice]) -> String {
        let view = view.visible
        switch layout {
        case .fullScreen(let widest):
            return Terminal.clearScreen + text(fullScreen(view, focus: focus, notices: notices, width: width(widest)))
        case .plain:
            var lines: [String] = []
            switch change {
            case .screen: lines += plainScreen(view)
            case .field(let name): lines += view.field(name).map { plainField($0, summary: false, withOptions: false) } ?? []
            case .none: break
            }
            lines += notices.flatMap(plainNotice)
            return text(lines)
        }
    }

    /// The question the next line answers. Plain prompts end their line, so that a transcript
    /// has one prompt per line.
    func prompt(_ view: FlowView, focus: ReportFocus) -> String {
        let view = view.visible
        let question: String
        var hint = ""
        switch focus {
        case .field(let name):
            guard let field = view.field(name) else { return prompt(view, focus: .proceed) }
            question = field.label
            if let shown = field.display {
                hint = "[\(TextLayout.truncate(shown, to: 40))]"
            } else if name == "photo" {
                hint = "(\(copy.photoPrompt))"
            } else if let options = field.options, !options.isEmpty {
                hint = "(1–\(options.count))"
            } else if layout == .plain, let placeholder = field.placeholder {
                hint = "(\(placeholder))"
            }
        case .proceed:
            question = copy.continuePrompt
        case .summary:
            question = copy.summaryPrompt
        case .alert:
            question = copy.alertPrompt(view.screen?.alert?.actions.count ?? 0)
        }
        switch layout {
        case .fullScreen:
            return " " + style.cyan(style.bold("›")) + " " + style.bold(question) + (hint.isEmpty ? "" : " " + style.dim(hint)) + ": "
        case .plain:
            return "? " + question + (hint.isEmpty ? "" : " " + hint) + ":\n"
        }
    }

    /// Ends the prompt's line when the session ends without an answer to it: on a terminal the
    /// cursor is still after the prompt. Plain prompts end their line already.
    func leavingPrompt() -> String {
        layout == .plain ? "" : "\n"
    }

    /// A notice to show at once, while the program waits (a location request).
    func immediate(_ notice: Notice) -> String {
        switch layout {
        case .fullScreen(let widest): return text(fullNotice(notice, width: width(widest)))
        case .plain: return text(plainNotice(notice))
        }
    }

    /// Said once when the flow has started: its id, for `petspot call` and for support. The
    /// same words in every language, so a script can find it.
    func opening(_ view: FlowView) -> String {
        layout == .plain ? "flow: \(VisibleText.line(view.id))\n" : ""
    }

    /// The last words after a submit: the report id, and how to see the report.
    func submitted(reportID: String) -> String {
        success(copy.submitted(reportID), reportID: reportID)
    }

    func cancelled() -> String {
        ended(copy.cancelled)
    }

    /// The last words when the flow was submitted on another connection: the report id, when
    /// the daemon gave it, and how to see the report.
    func submittedElsewhere(reportID: String?) -> String {
        success(copy.submittedElsewhere(reportID), reportID: reportID)
    }

    /// A report stored: what was said, then how to see the report when its id is known.
    private func success(_ said: String, reportID: String?) -> String {
        let said = VisibleText.line(said)
        let showIt = reportID.map { VisibleText.line(copy.showIt($0)) }
        switch layout {
        case .fullScreen:
            return "\n " + style.green(style.bold("✓ " + said)) + "\n" + (showIt.map { " " + style.dim($0) + "\n" } ?? "")
        case .plain:
            return said + "\n" + (showIt.map { $0 + "\n" } ?? "")
        }
    }

    /// The last words when the flow ended without a report: cancelled here or elsewhere, or expired.
    func ended(_ said: String) -> String {
        let said = VisibleText.line(said)
        return layout == .plain ? said + "\n" : "\n " + style.yellow(said) + "\n"
    }

    // MARK: Full screen

    private func width(_ widest: Int) -> Int {
        max(min(widest, columns?() ?? widest), 40)
    }

    private func fullScreen(_ view: FlowView, focus: ReportFocus, notices: [Notice], width: Int) -> [String] {
        guard let screen = view.screen else { return [] }
        var out: [String] = []
        let progress = screen.progress?.label ?? ""
        let title = " " + screen.title
        let header = title + String(repeating: " ", count: max(width - title.count - progress.count - 1, 1)) + progress + " "
        if style.enabled {
            out.append(style.inverse(style.bold(header)))
        } else {
            out.append(header)
            out.append(String(repeating: "─", count: width))
        }
        out.append("")
        out.append(" " + style.bold(screen.heading))
        out += TextLayout.wrap(screen.text, width: width - 2).map { " " + $0 }
        out.append("")

        let summary = view.step == "summary"
        let labelWidth = min(screen.fields.map(\.label.count).max() ?? 0, max(width / 2 - 4, 12))
        for field in screen.fields {
            out += fullField(field, focused: focus == .field(field.name), summary: summary, labelWidth: labelWidth, width: width)
        }
        if let toast = screen.toast {
            out.append("")
            out.append(" " + style.inverse(style.yellow(" ! " + toast + " ")))
        }
        if let alert = screen.alert {
            out.append("")
            out += fullAlert(alert, width: width)
        }
        if !notices.isEmpty {
            out.append("")
            out += notices.flatMap { fullNotice($0, width: width) }
        }
        out.append("")
        out += TextLayout.wrap(footer(view), width: width - 2).map { " " + style.dim($0) }
        out.append(" " + style.dim("flow " + view.id))
        out.append("")
        return out
    }

    private func fullField(_ field: FlowView.Field, focused: Bool, summary: Bool, labelWidth: Int, width: Int) -> [String] {
        let marker = focused ? style.cyan(style.bold("›")) : " "
        let paddedLabel = TextLayout.pad(field.label, to: labelWidth)
        let label = focused ? style.bold(paddedLabel) : (field.enabled || summary ? paddedLabel : style.dim(paddedLabel))
        // Values, errors and hints line up in a column after the labels; on a narrow terminal
        // the column would be too thin, so they go under the label instead.
        let valueColumn = 3 + labelWidth + 2
        let indent = valueColumn <= width - 24 ? valueColumn : 5
        let valueWidth = width - indent
        let pad = String(repeating: " ", count: indent)

        var valueLines: [String]
        if let shown = field.display {
            valueLines = TextLayout.wrap(shown, width: valueWidth)
        } else {
            let placeholder = field.placeholder ?? ""
            let note = field.enabled || summary ? placeholder : [placeholder, "(\(copy.unavailable))"].filter { !$0.isEmpty }.joined(separator: " ")
            valueLines = TextLayout.wrap(note, width: valueWidth).map(style.dim)
        }
        if let counter = field.counter {
            if TextLayout.visibleLength(valueLines[valueLines.count - 1]) + 2 + counter.count <= valueWidth {
                valueLines[valueLines.count - 1] += "  " + style.dim(counter)
            } else {
                valueLines.append(style.dim(counter))
            }
        }
        var out: [String]
        if indent == valueColumn, field.label.count <= labelWidth {
            out = [" \(marker) \(label)  \(valueLines[0])"] + valueLines.dropFirst().map { pad + $0 }
        } else {
            out = [" \(marker) \(label)"] + valueLines.map { pad + $0 }
        }
        if let error = field.error {
            out += TextLayout.wrap("✗ " + error, width: valueWidth).map { pad + style.red($0) }
        }
        if let helper = field.helper {
            out += TextLayout.wrap(helper, width: valueWidth).map { pad + style.dim($0) }
        }
        if focused, let options = field.options, !options.isEmpty {
            out += optionLines(field, options, width: valueWidth).map { pad + $0 }
        }
        return out
    }

    /// "1 Dog   2 Cat   3 Rabbit …", wrapped; the chosen one in bold.
    private func optionLines(_ field: FlowView.Field, _ options: [FlowView.Option], width: Int) -> [String] {
        var lines: [String] = []
        var line = "", lineLength = 0
        for (index, option) in options.enumerated() {
            let plain = "\(index + 1) \(option.name)"
            let chosen = field.value.stringValue == option.id
            let styled = style.cyan("\(index + 1)") + " " + (chosen ? style.bold(option.name) : option.name)
            if lineLength > 0, lineLength + 3 + plain.count > width {
                lines.append(line)
                line = ""
                lineLength = 0
            }
            line += (lineLength > 0 ? "   " : "") + styled
            lineLength += (lineLength > 0 ? 3 : 0) + plain.count
        }
        if lineLength > 0 { lines.append(line) }
        return lines
    }

    private func fullAlert(_ alert: FlowView.Alert, width: Int) -> [String] {
        let bar = style.yellow("│")
        var out = [" " + style.yellow("┌─ ") + style.bold(alert.title)]
        out += TextLayout.wrap(alert.message, width: width - 4).map { " \(bar) \($0)" }
        let choices = alert.actions.enumerated().map { style.cyan("\($0.offset + 1)") + " " + $0.element.label }
        out.append(" \(bar) " + choices.joined(separator: "    "))
        out.append(" " + style.yellow("└─"))
        return out
    }

    private func fullNotice(_ notice: Notice, width: Int) -> [String] {
        let notice = notice.visible
        let icon: String
        switch notice.kind {
        case .info: icon = style.cyan("•")
        case .success: icon = style.green("✓")
        case .warning: icon = style.yellow("!")
        case .problem: icon = style.red("✗")
        }
        var out = TextLayout.wrap(notice.text, width: width - 4).enumerated().map { index, line in
            (index == 0 ? " \(icon) " : "   ") + line
        }
        for detail in notice.details {
            // "command   meaning": a long meaning continues under itself.
            let hanging = detail.firstRange(of: "  ").map { range in
                detail.distance(from: detail.startIndex, to: range.lowerBound) + detail[range.lowerBound...].prefix { $0 == " " }.count
            } ?? 0
            let lines = TextLayout.wrap(String(detail.dropFirst(hanging)), width: max(width - 5 - hanging, 20))
            out += lines.enumerated().map { index, line in
                "     " + (index == 0 ? String(detail.prefix(hanging)) : String(repeating: " ", count: hanging)) + line
            }
        }
        return out
    }

    /// The commands this screen's actions allow, then the editing keys where there is something to edit.
    private func footer(_ view: FlowView) -> String {
        var commands: [String] = []
        if view.can("continue") { commands.append(":continue") }
        if view.can("back") { commands.append(":back") }
        if view.can("requestLocation") { commands.append(":gps") }
        if view.step != "summary", view.field("photo") != nil { commands.append(":photo PATH") }
        if view.can("submit") { commands.append(":submit") }
        commands.append(":cancel")
        let editable = view.screen?.fields.contains { $0.enabled } ?? false
        return commands.joined(separator: " ") + "  ·  " + (editable ? copy.footer : ":help")
    }

    // MARK: Plain

    private func plainScreen(_ view: FlowView) -> [String] {
        guard let screen = view.screen else { return [] }
        var out = ["== " + [screen.progress?.label, screen.title].compactMap { $0 }.joined(separator: " ") + " =="]
        out.append(screen.heading)
        out.append(screen.text)
        let summary = view.step == "summary"
        for field in screen.fields {
            out += plainField(field, summary: summary, withOptions: !summary)
        }
        if let toast = screen.toast {
            out.append("! " + toast)
        }
        if let alert = screen.alert {
            out.append("!! " + alert.title)
            out.append("   " + alert.message)
            for (index, action) in alert.actions.enumerated() {
                out.append("   \(index + 1)) \(action.label)")
            }
        }
        return out
    }

    private func plainField(_ field: FlowView.Field, summary: Bool, withOptions: Bool) -> [String] {
        var line = "  \(field.label): "
        if let shown = field.display {
            line += shown.replacingNewlines
        } else {
            line += "(\(field.placeholder ?? ""))"
            if !field.enabled && !summary { line += " [\(copy.unavailable)]" }
        }
        if let counter = field.counter { line += " (\(counter))" }
        var out = [line]
        if let error = field.error { out.append("    error: " + error) }
        if let helper = field.helper { out.append("    note: " + helper) }
        if withOptions, let options = field.options, !options.isEmpty {
            out.append("    options: " + options.enumerated().map { "\($0.offset + 1)) \($0.element.name)" }.joined(separator: ", "))
        }
        return out
    }

    private func plainNotice(_ notice: Notice) -> [String] {
        let notice = notice.visible
        let mark = notice.kind == .warning || notice.kind == .problem ? "!" : "*"
        return ["\(mark) \(notice.text)"] + notice.details.map { "    " + $0 }
    }

    private func text(_ lines: [String]) -> String {
        lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }
}
