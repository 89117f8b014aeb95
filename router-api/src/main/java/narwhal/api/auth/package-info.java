/**
 * Client authentication as front-ends see it: a {@link narwhal.api.auth.ClientAuthenticator}
 * turns the raw {@code Authorization} value (HTTP header or gRPC metadata) into a {@link
 * narwhal.api.auth.Caller} or a refusal to answer at once. The core implements it over the fleet
 * file's {@code tenants} section; front-ends only carry the caller to the core.
 */
@NullMarked
package narwhal.api.auth;

import org.jspecify.annotations.NullMarked;
