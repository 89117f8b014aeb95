/**
 * The adapter conformance kit: a JUnit 5 suite ({@link narwhal.adapters.kit.AdapterConformanceSuite})
 * that an engine adapter module extends with a few lines, supplying an {@link
 * narwhal.adapters.kit.AdapterUnderTest}. The suite drives the real router core over real sockets
 * against the adapter's engine or simulator and checks what the spec ("Backend execution and
 * failures") asks of every engine family. See docs/adapters.md.
 */
@NullMarked
package narwhal.adapters.kit;

import org.jspecify.annotations.NullMarked;
