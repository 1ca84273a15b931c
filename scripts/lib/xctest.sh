# Sourced by scripts/test and scripts/test-sanitized.
# xctest_count LOG: sets passed, failed and skipped from XCTest's own per-test lines.
xctest_count() {
    passed=$(grep -cE "^Test Case '.*' passed" "$1" || true)
    failed=$(grep -cE "^Test Case '.*' failed" "$1" || true)
    skipped=$(grep -cE "^Test Case '.*' skipped" "$1" || true)
}
