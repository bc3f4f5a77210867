"""TensorBoard event files: the TFRecord framing, the protobuf decoder, a fast scalar path, and folders."""
