/** The conformance suite every front-end passes: one contract with the core, checked over real sockets. */
@NullMarked
package narwhal.testing.frontend;

import org.jspecify.annotations.NullMarked;
