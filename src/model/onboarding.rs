//! The community's onboarding (SPEC §10, "Onboarding"): the six steps the kit's
//! `OnBoardingWidget` shows the community's creator (`SCStepType`), and where each
//! stands. hearth records when staff start and complete a step; it performs none of
//! the platform's generation: the "contents" and "categories" steps are where the
//! hosted platform writes posts and category art with AI, which hearth does not do,
//! so starting them is refused and staff complete them by hand.

use serde::Serialize;

/// The steps, by id: the kit's `SCOnBoardingStepType` and `SCOnBoardingStepIdType`.
pub const STEPS: [(i64, &str); 6] = [
    (1, "contents"),
    (2, "categories"),
    (3, "appearance"),
    (4, "profile"),
    (5, "invite"),
    (6, "app"),
];

/// The steps whose start is the platform's content generation.
pub const GENERATED: [i64; 2] = [1, 2];

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    NotStarted,
    InProgress,
    Completed,
}

impl Status {
    /// The kit's `SCOnBoardingStepStatusType` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::NotStarted => "not_started",
            Status::InProgress => "in_progress",
            Status::Completed => "completed",
        }
    }

    /// The stored value (`onboarding_step.status`); a step without a row is not started.
    pub fn from_stored(s: Option<&str>) -> Self {
        match s {
            Some("completed") => Status::Completed,
            Some("in_progress") => Status::InProgress,
            _ => Status::NotStarted,
        }
    }
}

/// `SCStepType`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = OnboardingStep)]
pub struct StepJson {
    /// 1 to 6
    pub id: i64,
    /// contents, categories, appearance, profile, invite or app
    pub step: &'static str,
    /// not_started, in_progress or completed (hearth never reports failed)
    pub status: &'static str,
    /// 100 when completed, else 0 (hearth runs no step's work in the background)
    pub completion_percentage: i64,
    /// Always empty: hearth generates no content
    pub results: Vec<serde_json::Value>,
}

/// The JSON of step `id` at `status`; `None` for an unknown id.
pub fn step_json(id: i64, status: Status) -> Option<StepJson> {
    let (_, step) = STEPS.iter().find(|(i, _)| *i == id)?;
    Some(StepJson {
        id,
        step,
        status: status.as_str(),
        completion_percentage: if status == Status::Completed { 100 } else { 0 },
        results: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_the_kits() {
        assert_eq!(
            step_json(3, Status::Completed).map(|s| (s.step, s.completion_percentage)),
            Some(("appearance", 100))
        );
        assert!(step_json(7, Status::NotStarted).is_none());
        assert_eq!(Status::from_stored(None), Status::NotStarted);
    }
}
