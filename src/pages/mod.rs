pub mod datasets;
pub mod playground;
pub mod sample;
pub mod verify;
