/**
 * The fleet configuration: immutable records for every section of the {@code narwhal.fleet} JSON
 * file, and {@link narwhal.config.FleetFileParser}, which reads and validates that file.
 *
 * <p>The records do no validation of their own beyond null checks, so tests and demos can build
 * any fleet in code; the parser is what enforces the documented types and ranges.
 */
@NullMarked
package narwhal.config;

import org.jspecify.annotations.NullMarked;
