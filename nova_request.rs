use crate::error::{PResult, expected};
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NovaRequest<'a> { pub client: &'a str }
pub fn is_request_logger(l: &str) -> bool { l == "nova.api.openstack.requestlog" }
pub fn parse_nova_request(input: &str) -> PResult<'_, NovaRequest<'_>> { expected(input, "x") }
