import FaultlineTLS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `faultline ca simulator`: how to make iOS trust the CA, as a shell script whose only command
/// adds the certificate to the booted simulator and whose comments give the device steps.
extension CACommand {
    static func printSimulatorInstructions(_ invocation: Invocation) throws {
        let text = simulatorInstructions(
            certificatePath: certificatePath(invocation), subject: invocation.authority.subjectDescription,
            caArguments: CAOptions.arguments(invocation.parsed))
        try writeAll(Array(text.utf8), to: STDOUT_FILENO, name: "stdout")
    }

    /// The script `faultline ca simulator` prints. `caArguments` are the options that chose this CA,
    /// repeated in the export command of the device steps.
    static func simulatorInstructions(certificatePath: String, subject: String, caArguments: [String]) -> String {
        // `simctl keychain <device> add-root-cert <path>` adds a certificate to the simulator's
        // trusted root store; `booted` names the running simulator. simctl has had the `keychain`
        // subcommand since Xcode 11.4 (its release notes, quoted in KaneCheshire/Peasy#13); the same
        // spelling is in use in e.g. pass-culture/pass-culture-app-native
        // scripts/add_certificate_to_ios_simulator.sh and gary-archer/oauth.mobilesample.ios TODO.md.
        // It accepts the PEM file as it is.
        let export = (["faultline", "ca", "export", "--format", "der", "--output", "faultline-ca.cer"] + caArguments)
            .map(shellQuoted).joined(separator: " ")
        return """
            xcrun simctl keychain booted add-root-cert \(shellQuoted(certificatePath))

            # The command above makes the booted iOS simulator trust Faultline's CA (Xcode 11.4 or
            # later; replace 'booted' with a UDID from 'xcrun simctl list devices' to pick another).
            # Run it once per simulator, and again after erasing one or after a new CA is made.
            #
            # On a device (iPhone, iPad), install the certificate as a profile, then trust it:
            #   1. \(export)
            #   2. Send faultline-ca.cer to the device by AirDrop or mail, and open it there
            #      ("Profile Downloaded").
            #   3. Settings > General > VPN & Device Management: tap the profile, then Install.
            #   4. Settings > General > About > Certificate Trust Settings: turn on full trust
            #      for "\(commonName(subject))".
            # Remove the profile when you are done: anyone with the CA key can intercept the
            # device's HTTPS traffic while it is trusted.

            """
    }

    /// The CN of an RFC 2253 subject (`CN=Faultline Local CA 1a2b3c4d,O=Faultline`), or the whole
    /// subject when it has none.
    static func commonName(_ subject: String) -> String {
        var components: [String] = []
        var current = ""
        var escaped = false
        for character in subject {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        components.append(current)
        guard let name = components.first(where: { $0.hasPrefix("CN=") }) else { return subject }
        return String(name.dropFirst(3))
    }

    /// `text` as one shell word: unchanged when it only has characters no shell treats specially,
    /// otherwise in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".", "/", ",", ":", "=", "+", "@", "%": return true
                default: return false
                }
            }
        return plain ? text : "'" + text.replacingAll("'", with: "'\\''") + "'"
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement` (no Foundation needed).
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
