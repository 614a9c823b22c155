// `import FaultlineTesting` brings the proxy-in-a-test core with it: a test names `TestProxy`,
// `HeldFlow` and the rest without a second import.
@_exported public import FaultlineTestProxy
