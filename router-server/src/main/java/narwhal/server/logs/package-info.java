/** The log formats of {@code bin/narwhal}: text (with key-value pairs) and JSON lines. */
package narwhal.server.logs;
