/**
 * TLS for tests: certificates made at test time (a CA, server, client, expired and wrong-host
 * certificates) and raw handshakes the JDK's own client refuses to send.
 */
@NullMarked
package narwhal.testing.tls;

import org.jspecify.annotations.NullMarked;
