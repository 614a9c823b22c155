/// The role names the rule format reserves (Rules/README.md, "match"). Custom roles come from the
/// auth profile's `roles`.
public enum FlowRole {
    /// A request that starts a lineage.
    public static let login = "login"
    /// A request that exchanges a refresh credential for new credentials.
    public static let refresh = "refresh"
    /// A request that ends a lineage.
    public static let logout = "logout"
    /// An RFC 7009 token revocation: its `token` form field is the credential it presents.
    public static let revoke = "revoke"
    /// Any request the profile gives no other role (also every request without a profile).
    public static let business = "business"
}
