package narwhal.sim;

/**
 * The engine a decode leg pulled its prompt's KV from, as far as telling it the pull is done
 * goes: a gpu-mode producer holds the KV until then ({@link KvReleaseClient}).
 *
 * @param releaseUrl the producer's {@link KvReleaseEndpoint}
 * @param remoteRequestId the producer's id for the prefill, which names the lease
 */
record ProducerKv(String releaseUrl, String remoteRequestId) {}
