/// The version of Faultline, as printed by `faultline --version` and written in trace headers.
public enum FaultlineVersion {
    public static let string = "0.1.0"
}
