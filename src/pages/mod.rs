pub mod datasets;
pub mod evaluate;
pub mod home;
pub mod perturb;
pub mod playground;
pub mod sample;
pub mod verify;
pub mod runs;
