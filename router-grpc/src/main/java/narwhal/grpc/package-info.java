/**
 * The gRPC front-end: {@code narwhal.v1.Router} (StreamCompletion, Complete, ListModels) over a
 * {@link narwhal.api.CompletionService}, plus {@code grpc.health.v1.Health} and server
 * reflection, served on Netty event loops shared with the HTTP front-end and the engine transport.
 */
@NullMarked
package narwhal.grpc;

import org.jspecify.annotations.NullMarked;
