// Package ghdouble owns the GitHub double: an in-process stand-in for the
// parts of GitHub's REST and GraphQL APIs that agentloop's forge client
// calls, served on 127.0.0.1 over HTTP or HTTPS (with a test CA written to a
// file a client trusts, SSL_CERT_FILE), at github.com's paths (/, /graphql)
// and at GitHub Enterprise's (/api/v3/, /api/graphql), so that the client, the
// application and the real gh CLI can be tested without the internet.
//
// It is GitHub, not agentloop: it imports nothing of ours, and it answers as
// GitHub's published OpenAPI description says (the operations it serves, and
// the schemas they use, are a fixture under testdata with the commit they came
// from), and it answers GraphQL queries over the types and fields of
// GitHub's schema it knows (gqlTypes). Every answer is checked as it is
// sent: a status the operation does not document, a body its schema does not
// allow, a GraphQL scalar of the wrong type, a request for an operation the
// double does not serve or for another API version than 2022-11-28. A
// violation is recorded, and [Server.Check] (run at a test's cleanup by
// [Start]) fails the test that caused it.
//
// State is seeded and read back from Go: repositories, issues with their
// labels, authors and blocked_by, comments (with their edits), collaborators'
// permissions, pull requests with their check runs, job logs, reviews, review
// threads and mergeability. GitHub Apps ([Server.AddApp], [Server.Install])
// authenticate with a JWT the double verifies with the App's public key
// (RS256, iss, iat, exp as GitHub checks them) and mint installation tokens
// that expire ([App.TokenLife]) or are revoked ([Server.RevokeTokens]).
// A repository whose [Repo.Remote] is set is served to git too, over its
// smart HTTP protocol at /OWNER/NAME.git (git http-backend behind the
// token check GitHub makes: a push needs a login that may write and a
// token with Contents: write); a token seen on any process's command line
// meanwhile is a violation.
// Tokens carry a login and OAuth scopes; a primary
// rate limit counts down per token (a conditional request answered 304 and
// GET /rate_limit are free, as on GitHub), and secondary limits and faults
// (a status for the next N requests, a hang, a dropped connection) are
// injected per method and path ([Server.Inject]). Requests are counted per
// endpoint and logged ([Server.Count], [Server.NotModified]).
//
// The command ghdouble (cmd/ghdouble) serves a double seeded from a file
// ([Seed]) for the real gh CLI and for benchmarks.
package ghdouble
