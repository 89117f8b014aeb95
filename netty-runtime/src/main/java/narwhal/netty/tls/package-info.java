/**
 * TLS on the router's front-ends: one {@code SslContext} per front-end, built once, whose
 * certificate is swapped underneath it when the files change.
 */
@NullMarked
package narwhal.netty.tls;

import org.jspecify.annotations.NullMarked;
