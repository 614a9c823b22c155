import FaultlineCore
import FaultlineRules

/// Compares a recorded JSON body with a live one, member by member, ignoring the order of object
/// members, numbers spelled differently (`1.0` and `1`), and credentials: a recorded string
/// compares through `RecordedTextMatcher`, so `flp.access.L1.1` matches the live token that
/// replaced it. Live strings that are credentials are never shown.
struct JSONBodyComparison {
    /// Most differences listed per body; the rest are counted.
    static let listedLimit = 10
    /// Longest value shown in a difference.
    static let shownLength = 60

    let credentials: CredentialMap
    private(set) var differences: [ResponseDifference] = []
    private(set) var unlisted = 0

    init(credentials: CredentialMap) {
        self.credentials = credentials
    }

    mutating func compare(_ recorded: JSONValue, _ live: JSONValue, pointer: String = "", memberName: String? = nil) {
        switch (recorded, live) {
        case (.object(let recordedList), .object(let liveList)):
            let recordedMembers = Self.dictionary(recordedList)
            let liveMembers = Self.dictionary(liveList)
            for key in Set(recordedMembers.keys).union(liveMembers.keys).sorted() {
                let path = pointer + "/" + CredentialSite.escapedToken(key)
                switch (recordedMembers[key], liveMembers[key]) {
                case (let old?, let new?): compare(old, new, pointer: path, memberName: key)
                case (let old?, nil): note(path, recorded: show(old, memberName: key), now: "(missing)")
                case (nil, let new?): note(path, recorded: "(missing)", now: show(new, memberName: key, live: true))
                case (nil, nil): break
                }
            }
        case (.array(let recordedElements), .array(let liveElements)):
            for index in 0..<max(recordedElements.count, liveElements.count) {
                let path = pointer + "/\(index)"
                if index >= liveElements.count {
                    note(path, recorded: show(recordedElements[index], memberName: nil), now: "(missing)")
                } else if index >= recordedElements.count {
                    note(path, recorded: "(missing)", now: show(liveElements[index], memberName: nil, live: true))
                } else {
                    compare(recordedElements[index], liveElements[index], pointer: path)
                }
            }
        case (.string(let old), .string(let new)):
            if !RecordedTextMatcher.matches(recorded: old, live: new, credentials: credentials) {
                note(
                    pointer, recorded: show(recorded, memberName: memberName),
                    now: show(live, memberName: memberName, live: true))
            }
        case (.number(let old), .number(let new)):
            if old.text != new.text, old.double != new.double { note(pointer, recorded: old.text, now: new.text) }
        default:
            if recorded != live {
                note(
                    pointer, recorded: show(recorded, memberName: memberName),
                    now: show(live, memberName: memberName, live: true))
            }
        }
    }

    private mutating func note(_ pointer: String, recorded: String, now: String) {
        guard differences.count < Self.listedLimit else {
            unlisted += 1
            return
        }
        differences.append(ResponseDifference(.body, pointer: pointer, recorded: recorded, now: now))
    }

    /// A value for a report: scalars as JSON spells them (shortened), containers by size; a
    /// live string that is a credential (a known live value, or under a credential member name)
    /// as `(a credential)`.
    private func show(_ value: JSONValue, memberName: String?, live: Bool = false) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return Self.shortened(number.text)
        case .string(let text):
            if live,
                credentials.isLiveValue(text) || memberName.map(CredentialSite.credentialMemberNames.contains) == true
            {
                return "(a credential)"
            }
            return "\"" + Self.shortened(text) + "\""
        case .array(let elements): return "an array of \(elements.count)"
        case .object(let members): return "an object of \(members.count) members"
        }
    }

    /// An object's members by key (keys are unique once parsed).
    private static func dictionary(_ members: [JSONMember]) -> [String: JSONValue] {
        Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    private static func shortened(_ text: String) -> String {
        text.count <= shownLength ? text : String(text.prefix(shownLength - 1)) + "…"
    }
}
