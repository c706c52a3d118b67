//! The page's HTTP for model APIs: the browser's `fetch`, the simulated model answering in the
//! page (`execbench_run::simulate`), or the in-browser model's worker (`local_http`), behind the
//! library's one `HttpClient` interface.

use execbench_providers::{HttpRequest, ProviderError};
use execbench_run::io::{HttpClient, HttpHead, ResponseBody};
use execbench_run::simulate::{SimulatedBody, SimulatedHttp};

use super::clock::BrowserClock;
use super::fetch::{FetchBody, FetchHttp};
use super::local_http::{LocalBody, LocalHttp};

/// The page's HTTP: `fetch`, or the simulated model answering in the page.
pub enum PageHttp {
    Fetch(FetchHttp),
    Simulated(SimulatedHttp<BrowserClock>),
    Local(LocalHttp),
}

impl PageHttp {
    /// `fetch`, or the in-browser model's worker for the `local` provider (`speed` sums its
    /// timings). The simulated model needs the run's samples: the Evaluate job builds it.
    pub fn for_provider(
        provider: &str,
        speed: leptos::prelude::RwSignal<Option<execbench_model_files::protocol::Speed>>,
    ) -> PageHttp {
        if provider == super::local_http::PROVIDER {
            PageHttp::Local(LocalHttp { speed, files: None })
        } else {
            PageHttp::Fetch(FetchHttp)
        }
    }
}

pub enum PageBody {
    Fetch(FetchBody),
    Simulated(SimulatedBody),
    Local(LocalBody),
}

impl ResponseBody for PageBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        match self {
            PageBody::Fetch(b) => b.chunk().await,
            PageBody::Simulated(b) => b.chunk().await,
            PageBody::Local(b) => b.chunk().await,
        }
    }
}

impl HttpClient for PageHttp {
    type Body = PageBody;
    async fn send(&self, request: &HttpRequest) -> Result<HttpHead<PageBody>, ProviderError> {
        match self {
            PageHttp::Fetch(h) => h.send(request).await.map(|head| HttpHead {
                status: head.status,
                headers: head.headers,
                body: PageBody::Fetch(head.body),
            }),
            PageHttp::Simulated(h) => h.send(request).await.map(|head| HttpHead {
                status: head.status,
                headers: head.headers,
                body: PageBody::Simulated(head.body),
            }),
            PageHttp::Local(h) => h.send(request).await.map(|head| HttpHead {
                status: head.status,
                headers: head.headers,
                body: PageBody::Local(head.body),
            }),
        }
    }
}
