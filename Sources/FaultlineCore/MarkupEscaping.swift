/// Escaping for the XML and HTML that Faultline writes (JUnit and HTML reports, SVG pictures, the
/// web UI's pages).
public enum MarkupEscaping {
    /// `text` as XML 1.0 (and HTML) text or attribute content: `&<>"'` as entities, `\r` as a
    /// character reference, and characters XML 1.0 cannot carry at all (most C0 controls) as U+FFFD.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case "\r": out += "&#13;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
