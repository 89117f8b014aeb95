package narwhal.sim;

/** How a prefill response's {@code kv_transfer_params} is spoiled. */
enum KvFault {
  MISSING_ENGINE_ID,
  BAD_BLOCK_IDS,
  WRONG_CONNECTOR,
  NONE
}
